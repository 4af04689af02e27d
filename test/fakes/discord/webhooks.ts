import type { APIMessage } from 'discord.js';
import {
  alreadyAcknowledged,
  emptyMessage,
  fieldError,
  invalidForm,
  unknownInteraction,
  unknownMessage,
  unknownWebhook,
} from './errors.js';
import { type Ctx, type Reply, type RestRouter, error, json, noContent } from './http.js';
import { INTERACTION, type InteractionState, type Interactions } from './interactions.js';
import type { RecordedFile } from './recorder.js';
import { validateChoices, validateMessage } from './validate.js';
import type { MessageBody, World } from './world.js';

const MESSAGE_FLAG_LOADING = 128;
const MESSAGE_FLAG_EPHEMERAL = 64;

export interface InteractionEndpointDeps {
  applicationId: string;
  world: World;
  interactions: Interactions;
  /** Discord drops interactions not answered within 3 s; tests may shorten or lengthen it. */
  callbackDeadlineMs: number;
  now: () => number;
}

/** An interaction's token works for 15 minutes: its callback, `@original` and follow-ups. */
export const INTERACTION_TOKEN_TTL_MS = 15 * 60 * 1000;

/**
 * The initial-response callback and the interaction webhook (`@original` and
 * followups). Both authenticate by interaction token alone, like on Discord.
 */
export class InteractionEndpoints {
  constructor(private readonly deps: InteractionEndpointDeps) {}

  register(r: RestRouter): void {
    const open = { auth: false };
    r.add('POST', '/interactions/:interactionId/:interactionToken/callback', (c) => this.#callback(c), open);

    const hook = '/webhooks/:webhookId/:webhookToken';
    r.add('POST', hook, (c) => this.#withWebhook(c, (s) => this.#followup(s, c)), open);
    r.add('GET', `${hook}/messages/:messageId`, (c) => this.#withWebhookMessage(c, (_s, m) => json(200, m)), open);
    r.add('PATCH', `${hook}/messages/:messageId`, (c) => this.#withWebhookMessage(c, (_s, m) => this.#edit(m, c)), open);
    r.add(
      'DELETE',
      `${hook}/messages/:messageId`,
      (c) =>
        this.#withWebhookMessage(c, (_s, m) => {
          this.deps.world.messages.delete(m.id);
          return noContent();
        }),
      open,
    );
  }

  #callback(c: Ctx): Reply {
    const { interactions, callbackDeadlineMs } = this.deps;
    const state = interactions.byToken.get(c.params.interactionToken ?? '');
    if (!state || state.id !== c.params.interactionId) return error(unknownInteraction());
    if (this.deps.now() - state.createdAt > callbackDeadlineMs) return error(unknownInteraction());
    if (state.acknowledged) return error(alreadyAcknowledged());
    // Over HTTP, a response that came too late or was refused failed the interaction for good.
    if (state.failure) return error(unknownInteraction());
    return this.respond(
      state,
      (c.body ?? {}) as { type?: number; data?: Record<string, unknown> },
      c.files,
      c.query.get('with_response') === 'true',
    );
  }

  /**
   * An interaction's initial response, however it came: the `/callback` request, or the body of
   * the HTTP response to the interaction (checked by the same rules, and allowed once).
   */
  respond(
    state: InteractionState,
    response: { type?: number; data?: Record<string, unknown> },
    files: RecordedFile[],
    withResponse = false,
  ): Reply {
    const { world } = this.deps;
    const { type, data } = response;
    const allowed: Record<number, number[]> = {
      [INTERACTION.applicationCommand]: [4, 5, 9],
      [INTERACTION.component]: [4, 5, 6, 7, 9],
      [INTERACTION.autocomplete]: [8],
    };
    if (type === undefined || !allowed[state.type]?.includes(type)) {
      return error(invalidForm(fieldError('type', 'INTERACTION_RESPONSE_TYPE_INVALID', 'Invalid interaction response type')));
    }

    const body = (data ?? {}) as MessageBody;
    const extras = this.#interactionMessageExtras(state);
    let message: APIMessage | undefined;
    switch (type) {
      case 4: {
        const invalid = validateMessage(body, files, false);
        if (invalid) return error(invalid);
        message = world.createMessage(state.channelId, body, files, extras);
        state.originalMessageId = message.id;
        break;
      }
      case 5:
        message = world.createMessage(state.channelId, {}, [], { ...extras, flags: (body.flags ?? 0) | MESSAGE_FLAG_LOADING });
        state.originalMessageId = message.id;
        break;
      case 7: {
        const current = state.originalMessageId ? world.messages.get(state.originalMessageId) : undefined;
        if (!current) return error(unknownMessage());
        const invalid = validateMessage(body, files, true);
        if (invalid) return error(invalid);
        message = world.editMessage(current, body, files);
        break;
      }
      case 8: {
        const invalid = validateChoices(data?.choices);
        if (invalid) return error(invalid);
        break;
      }
      case 9:
        if (typeof data?.custom_id !== 'string' || typeof data?.title !== 'string') {
          return error(invalidForm(fieldError('data.custom_id', 'BASE_TYPE_REQUIRED', 'This field is required')));
        }
        break;
    }
    state.acknowledged = true;

    if (!withResponse) return noContent();
    const current = message ?? (state.originalMessageId ? world.messages.get(state.originalMessageId) : undefined);
    return json(200, {
      interaction: {
        id: state.id,
        type: state.type,
        ...(current
          ? {
              response_message_id: current.id,
              response_message_loading: type === 5,
              response_message_ephemeral: ((current.flags ?? 0) & MESSAGE_FLAG_EPHEMERAL) !== 0,
            }
          : {}),
      },
      resource: { type, ...(message ? { message } : {}) },
    });
  }

  #interactionMessageExtras(state: InteractionState): Partial<APIMessage> {
    const { applicationId } = this.deps;
    // Replies to slash commands are CHAT_INPUT_COMMAND (20) messages; component replies are plain.
    return { webhook_id: applicationId, application_id: applicationId, type: state.commandType === 1 ? 20 : 0 };
  }

  #withWebhook(c: Ctx, fn: (state: InteractionState) => Reply): Reply {
    if (c.params.webhookId !== this.deps.applicationId) return error(unknownWebhook());
    const state = this.deps.interactions.byToken.get(c.params.webhookToken ?? '');
    // The interaction webhook only exists once the interaction has been answered, and only while its token lives.
    if (!state?.acknowledged) return error(unknownWebhook());
    if (this.deps.now() - state.createdAt > INTERACTION_TOKEN_TTL_MS) return error(unknownWebhook());
    return fn(state);
  }

  #withWebhookMessage(c: Ctx, fn: (state: InteractionState, message: APIMessage) => Reply): Reply {
    return this.#withWebhook(c, (state) => {
      const id = c.params.messageId === '@original' ? state.originalMessageId : c.params.messageId;
      const owned = id !== null && id !== undefined && (id === state.originalMessageId || state.followupIds.has(id));
      const message = owned ? this.deps.world.messages.get(id) : undefined;
      return message ? fn(state, message) : error(unknownMessage());
    });
  }

  #edit(message: APIMessage, c: Ctx): Reply {
    const body = (c.body ?? {}) as MessageBody;
    const invalid = validateMessage(body, c.files, true);
    if (invalid) return error(invalid);
    const edited = this.deps.world.editMessage(message, body, c.files);
    // Editing a deferred ("thinking") reply turns it into a normal message.
    if (((edited.flags ?? 0) & MESSAGE_FLAG_LOADING) !== 0) edited.flags = (edited.flags ?? 0) & ~MESSAGE_FLAG_LOADING;
    const empty = !edited.content && edited.embeds.length === 0 && edited.attachments.length === 0 && !edited.components?.length;
    if (empty) {
      this.deps.world.messages.set(message.id, message);
      return error(emptyMessage());
    }
    return json(200, edited);
  }

  #followup(state: InteractionState, c: Ctx): Reply {
    const body = (c.body ?? {}) as MessageBody;
    const invalid = validateMessage(body, c.files, false);
    if (invalid) return error(invalid);
    const message = this.deps.world.createMessage(state.channelId, body, c.files, this.#interactionMessageExtras(state));
    state.followupIds.add(message.id);
    return json(200, message);
  }
}
