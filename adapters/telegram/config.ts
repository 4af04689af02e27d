/** What the Telegram adapter is configured with (from TELEGRAM_* in the environment). */
export interface TelegramSettings {
  token: string;
  /** Another Bot API server (a local one, or a fake in tests). */
  apiUrl?: string;
  /** With it, updates come to `POST /telegram/webhook` instead of long polling. */
  webhookUrl?: string;
  /** Checked against every webhook request's X-Telegram-Bot-Api-Secret-Token; required with a webhook. */
  webhookSecret?: string;
}
