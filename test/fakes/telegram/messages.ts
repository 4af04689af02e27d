import type { Message } from 'grammy/types';

/**
 * Every message in every chat, the bot's and people's: what it says now, what it said before each
 * edit, whether it was deleted. Message ids count up per chat, as in a supergroup.
 */

export interface FakeMessage {
  readonly chatId: number;
  readonly messageId: number;
  readonly sender: 'bot' | 'user' | 'service';
  /** The message as Telegram holds it now, as a client would get it back. */
  message: Message;
  /** Earlier versions, oldest first: one for each edit. */
  readonly versions: Message[];
  deleted: boolean;
  /** When it was sent, on the fake's clock (ms). */
  readonly sentAt: number;
}

export class MessageStore {
  readonly #byChat = new Map<number, FakeMessage[]>();
  readonly #next = new Map<number, number>();

  /** The next id in a chat; taking one for a forum's General topic keeps 1 for it. */
  allocate(chatId: number): number {
    const id = this.#next.get(chatId) ?? 1;
    this.#next.set(chatId, id + 1);
    return id;
  }

  add(sender: FakeMessage['sender'], message: Message, sentAt: number): FakeMessage {
    const stored: FakeMessage = {
      chatId: message.chat.id,
      messageId: message.message_id,
      sender,
      message,
      versions: [],
      deleted: false,
      sentAt,
    };
    const list = this.#byChat.get(stored.chatId) ?? [];
    list.push(stored);
    this.#byChat.set(stored.chatId, list);
    return stored;
  }

  /** A message that still exists. */
  find(chatId: number, messageId: number | undefined): FakeMessage | undefined {
    if (messageId === undefined) return undefined;
    return this.#byChat.get(chatId)?.find((m) => m.messageId === messageId && !m.deleted);
  }

  /** Every message of the chat in order, deleted ones included (and marked). */
  list(chatId: number): FakeMessage[] {
    return [...(this.#byChat.get(chatId) ?? [])];
  }

  replace(stored: FakeMessage, next: Message): void {
    stored.versions.push(stored.message);
    stored.message = next;
  }
}

/** A message as it appears inside another (`reply_to_message`, a callback's `message`): without its own reply. */
export function quoted(message: Message): Message {
  const { reply_to_message: _, ...rest } = message as Message & { reply_to_message?: Message };
  return rest as Message;
}
