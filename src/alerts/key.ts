/**
 * The key an alert message carries in its footer, "polbot alert #12": the id of the incident
 * leading it, which the store knows before the message is posted. It is how a replica taking a
 * delivery over recognises the message in the channel's history.
 */
export const alertKey = (leadId: number): string => `polbot alert #${leadId}`;
