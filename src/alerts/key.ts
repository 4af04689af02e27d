/**
 * The key an alert message carries in its footer, "polbot alert #12": the id of the incident
 * leading it, which the store knows before the message is posted. It is how a replica taking a
 * delivery over recognises the message in the channel's history.
 */
export const alertKey = (leadId: number): string => `polbot alert #${leadId}`;

/**
 * The key an escalation's reply carries, "polbot escalation #7": the id of its step. A replica
 * taking a step over looks for it in the message's thread before posting the reply again.
 */
export const escalationKey = (stepId: number): string => `polbot escalation #${stepId}`;
