/**
 * Who may add, remove, pause or resume digests. The adapters decide and pass the answer in
 * `Caller.canManageDigests`; the core refuses those subcommands when it is false (list and
 * preview are open to everyone in the channel).
 *
 * Slack: everyone, unless DIGEST_ADMINS lists user ids; then only those.
 * Discord: a separate admin-gated command (its default member permissions restrict it to server
 * managers) carries canManageDigests = true; the everyday /pol command carries false.
 */
export function slackCanManageDigests(digestAdmins: readonly string[], userId: string): boolean {
  return digestAdmins.length === 0 || digestAdmins.includes(userId);
}
