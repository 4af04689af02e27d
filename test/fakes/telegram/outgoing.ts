import type { Message, MessageEntity } from 'grammy/types';
import type { Args } from './args.js';
import { badRequest, notModelled, notModified } from './errors.js';
import type { FileStore } from './files.js';
import { caption, messageText } from './formatted.js';
import { judgeMarkup, type Markup, readMarkup } from './keyboard.js';
import type { Limits } from './limits.js';
import { type FakeMessage, type MessageStore, quoted } from './messages.js';
import type { ChatState, Topic, World } from './world.js';

/**
 * What the bot posts and changes: sendMessage, sendPhoto, sendDocument, sendChatAction, editMessageText,
 * editMessageCaption, editMessageReplyMarkup and deleteMessage, each checked in the order the Bot
 * API server and then Telegram check it: the text and keyboard as sent, the chat, the forum
 * topic, the message replied to, whether the bot may write there, the keyboard's content, flood
 * control. An edit that omits reply_markup removes the keyboard, as on Telegram.
 */

export interface Outbox {
  world: World;
  messages: MessageStore;
  files: FileStore;
  limits: Limits;
  now: () => number;
}

const CHAT_ACTIONS = new Set([
  'typing',
  'upload_photo',
  'record_video',
  'upload_video',
  'record_voice',
  'upload_voice',
  'upload_document',
  'choose_sticker',
  'find_location',
  'record_video_note',
  'upload_video_note',
]);

const DELETE_WINDOW_MS = 48 * 3600_000;

export function sendMessage(box: Outbox, args: Args): Message {
  const text = messageText(textInput(args, 'text', 'entities'));
  return post(box, args, { text: text.text, ...nonEmpty('entities', text.entities) });
}

export function sendPhoto(box: Outbox, args: Args): Message {
  const parsed = caption(textInput(args, 'caption', 'caption_entities'));
  const photo = box.files.photo(args.file('photo'));
  return post(box, args, {
    photo: photo.sizes,
    ...(parsed ? { caption: parsed.text, ...nonEmpty('caption_entities', parsed.entities) } : {}),
    ...(args.bool('show_caption_above_media') ? { show_caption_above_media: true } : {}),
    ...(args.bool('has_spoiler') ? { has_media_spoiler: true } : {}),
  });
}

export function sendDocument(box: Outbox, args: Args): Message {
  const parsed = caption(textInput(args, 'caption', 'caption_entities'));
  const document = box.files.document(args.file('document'));
  return post(box, args, {
    document,
    ...(parsed ? { caption: parsed.text, ...nonEmpty('caption_entities', parsed.entities) } : {}),
  });
}

export function sendChatAction(box: Outbox, args: Args): true {
  const action = args.string('action') ?? '';
  if (!CHAT_ACTIONS.has(action)) throw badRequest('wrong parameter action in request');
  const target = box.world.resolve(args.string('chat_id'));
  box.world.thread(target, args.int('message_thread_id'));
  box.world.checkWritable(target);
  return true;
}

export function editMessageText(box: Outbox, args: Args): Message {
  const text = messageText(textInput(args, 'text', 'entities'));
  return edit(box, args, (current) => {
    if (!('text' in current)) throw badRequest('there is no text in the message to edit');
    return { text: text.text, ...nonEmpty('entities', text.entities) };
  });
}

export function editMessageCaption(box: Outbox, args: Args): Message {
  const parsed = caption(textInput(args, 'caption', 'caption_entities'));
  return edit(box, args, (current) => {
    if (!('photo' in current)) throw badRequest('there is no caption in the message to edit');
    return parsed ? { caption: parsed.text, ...nonEmpty('caption_entities', parsed.entities) } : {};
  });
}

export function editMessageReplyMarkup(box: Outbox, args: Args): Message {
  return edit(box, args, (current) => {
    const { text, entities, caption: c, caption_entities } = current as unknown as Record<string, unknown>;
    return { text, entities, caption: c, caption_entities };
  });
}

export function deleteMessage(box: Outbox, args: Args): true {
  const target = box.world.resolve(args.string('chat_id'));
  const stored = box.messages.find(target.chat.id, args.int('message_id'));
  if (!stored) throw badRequest('message to delete not found');
  const othersInGroup = stored.sender !== 'bot' && target.chat.type !== 'private' && !target.botIsAdmin;
  if (othersInGroup || stored.sender === 'service' || box.now() - stored.sentAt > DELETE_WINDOW_MS) {
    throw badRequest("message can't be deleted");
  }
  stored.deleted = true;
  return true;
}

function textInput(args: Args, field: string, entities: string) {
  return { text: args.string(field), parseMode: args.string('parse_mode'), entities: args.values[entities] };
}

function nonEmpty(key: string, entities: MessageEntity[]): Record<string, MessageEntity[]> {
  return entities.length > 0 ? { [key]: entities } : {};
}

/** Only an inline keyboard shows in the message; other keyboards live in the person's app. */
function shownMarkup(markup: Markup | undefined): Record<string, Markup> {
  return markup && 'inline_keyboard' in markup ? { reply_markup: markup } : {};
}

function post(box: Outbox, args: Args, content: Record<string, unknown>): Message {
  const markup = readMarkup(args.values.reply_markup);
  const target = box.world.resolve(args.string('chat_id'));
  let topic = box.world.thread(target, args.int('message_thread_id'));
  const replyTo = repliedTo(box, target, args);
  if (!topic && replyTo?.message.message_thread_id !== undefined && replyTo.message.is_topic_message) {
    topic = target.topics.get(replyTo.message.message_thread_id);
  }
  box.world.checkWritable(target);
  judgeMarkup(markup);
  box.limits.send(target.chat.id, box.now());

  const now = box.now();
  const reply = replyTo ?? (topic ? box.messages.find(target.chat.id, topic.threadId) : undefined);
  const message = {
    message_id: box.messages.allocate(target.chat.id),
    from: box.world.botUser(),
    chat: target.chat,
    date: Math.floor(now / 1000),
    ...topicFields(topic),
    ...(reply ? { reply_to_message: quoted(reply.message) } : {}),
    ...content,
    ...shownMarkup(markup),
  } as Message;
  box.messages.add('bot', message, now);
  return message;
}

function topicFields(topic: Topic | undefined): Record<string, unknown> {
  return topic ? { message_thread_id: topic.threadId, is_topic_message: true } : {};
}

/** The message a send replies to, from reply_parameters or the older reply_to_message_id. */
function repliedTo(box: Outbox, target: ChatState, args: Args): FakeMessage | undefined {
  const parameters = args.json('reply_parameters', "can't parse reply parameters JSON object") as Record<string, unknown> | undefined;
  const messageId = parameters ? Number(parameters.message_id) : args.int('reply_to_message_id');
  if (messageId === undefined || Number.isNaN(messageId) || messageId <= 0) return undefined;
  if (parameters?.chat_id !== undefined && String(parameters.chat_id) !== String(target.chat.id)) {
    throw notModelled('replies to a message in another chat');
  }
  const allowWithout = parameters ? parameters.allow_sending_without_reply === true : args.bool('allow_sending_without_reply');
  const found = box.messages.find(target.chat.id, messageId);
  if (!found && !allowWithout) throw badRequest('message to be replied not found');
  return found;
}

function edit(box: Outbox, args: Args, content: (current: Message) => Record<string, unknown>): Message {
  if (args.has('inline_message_id')) throw notModelled('inline_message_id (messages sent via inline mode)');
  const markup = readMarkup(args.values.reply_markup);
  const target = box.world.resolve(args.string('chat_id'));
  const stored = box.messages.find(target.chat.id, args.int('message_id'));
  if (!stored) throw badRequest('message to edit not found');
  if (stored.sender !== 'bot') throw badRequest("message can't be edited");
  const fresh = content(stored.message);
  judgeMarkup(markup);

  const {
    text: _t,
    entities: _e,
    caption: _c,
    caption_entities: _ce,
    reply_markup: _r,
    edit_date: _d,
    ...kept
  } = stored.message as Message & Record<string, unknown>;
  const next = { ...kept, ...definedOnly(fresh), ...shownMarkup(markup) } as Message;
  if (sameContent(stored.message, next)) throw notModified();
  const edited = { ...next, edit_date: Math.floor(box.now() / 1000) } as Message;
  box.messages.replace(stored, edited);
  return edited;
}

function definedOnly(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
}

function sameContent(a: Message, b: Message): boolean {
  const pick = (m: Message) => {
    const { text, entities, caption: c, caption_entities, reply_markup } = m as unknown as Record<string, unknown>;
    return JSON.stringify([text ?? null, entities ?? [], c ?? null, caption_entities ?? [], reply_markup ?? null]);
  };
  return pick(a) === pick(b);
}
