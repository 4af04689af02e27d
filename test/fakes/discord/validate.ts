import { type ApiError, emptyMessage, fieldError, invalidForm, tooLarge } from './errors.js';
import type { RecordedFile } from './recorder.js';
import type { MessageBody } from './world.js';

// Limits documented by Discord; enforcing them here makes the fake reject what the
// real platform would reject instead of letting oversized replies pass in tests.
export const LIMITS = {
  content: 2000,
  embeds: 10,
  embedTitle: 256,
  embedDescription: 4096,
  embedFields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footerText: 2048,
  authorName: 256,
  embedTotal: 6000,
  files: 10,
  fileBytes: 10 * 1024 * 1024,
  choices: 25,
  choiceName: 100,
  commandName: 32,
  commandDescription: 100,
  commandOptions: 25,
  actionRows: 5,
  rowButtons: 5,
  customId: 100,
  buttonLabel: 80,
  selectOptions: 25,
  optionText: 100,
  placeholder: 150,
} as const;

const max = (path: string, limit: number) => invalidForm(fieldError(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${limit} or fewer in length.`));

export function validateMessage(body: MessageBody | undefined, files: RecordedFile[], isEdit: boolean): ApiError | null {
  const b = body ?? {};
  if (files.length > LIMITS.files) return max('files', LIMITS.files);
  if (files.some((f) => f.bytes.length > LIMITS.fileBytes)) return tooLarge();
  if (typeof b.content === 'string' && b.content.length > LIMITS.content) return max('content', LIMITS.content);
  if (b.nonce !== undefined && String(b.nonce).length > 25) return max('nonce', 25);

  const embeds = b.embeds ?? [];
  if (embeds.length > LIMITS.embeds) return max('embeds', LIMITS.embeds);
  let total = 0;
  for (const [i, e] of embeds.entries()) {
    const checks: [string, string | undefined, number][] = [
      ['title', e.title, LIMITS.embedTitle],
      ['description', e.description, LIMITS.embedDescription],
      ['footer.text', e.footer?.text, LIMITS.footerText],
      ['author.name', e.author?.name, LIMITS.authorName],
    ];
    for (const [field, value, limit] of checks) {
      if (value !== undefined && value.length > limit) return max(`embeds.${i}.${field}`, limit);
      total += value?.length ?? 0;
    }
    const fields = e.fields ?? [];
    if (fields.length > LIMITS.embedFields) return max(`embeds.${i}.fields`, LIMITS.embedFields);
    for (const [j, f] of fields.entries()) {
      if (!f.name) return invalidForm(fieldError(`embeds.${i}.fields.${j}.name`, 'BASE_TYPE_REQUIRED', 'This field is required'));
      if (!f.value) return invalidForm(fieldError(`embeds.${i}.fields.${j}.value`, 'BASE_TYPE_REQUIRED', 'This field is required'));
      if (f.name.length > LIMITS.fieldName) return max(`embeds.${i}.fields.${j}.name`, LIMITS.fieldName);
      if (f.value.length > LIMITS.fieldValue) return max(`embeds.${i}.fields.${j}.value`, LIMITS.fieldValue);
      total += f.name.length + f.value.length;
    }
  }
  if (total > LIMITS.embedTotal) {
    return invalidForm(fieldError('embeds', 'MAX_EMBED_SIZE_EXCEEDED', `Embed size exceeds maximum size of ${LIMITS.embedTotal}`));
  }

  const components = componentError(b.components);
  if (components) return components;
  const mentions = allowedMentionsError(b.allowed_mentions);
  if (mentions) return mentions;

  // An edit may legitimately only touch one field (or clear content while keeping embeds).
  if (!isEdit) {
    const hasContent = typeof b.content === 'string' && b.content.length > 0;
    const hasComponents = Array.isArray(b.components) && b.components.length > 0;
    if (!hasContent && embeds.length === 0 && files.length === 0 && !hasComponents) return emptyMessage();
  }
  return null;
}

const MENTION_TYPES = ['everyone', 'roles', 'users'];
const SNOWFLAKE = /^\d{5,25}$/;

/**
 * Discord's allowed mentions object: `parse` names mention types to parse from the content,
 * `users` and `roles` list ids (100 at most), and a type parsed wholesale cannot also be listed.
 */
function allowedMentionsError(value: unknown): ApiError | null {
  if (value === undefined || value === null) return null;
  const path = 'allowed_mentions';
  if (typeof value !== 'object' || Array.isArray(value)) {
    return invalidForm(fieldError(path, 'DICT_TYPE_CONVERT', 'Only dictionaries may be used in a DictType'));
  }
  const m = value as { parse?: unknown; users?: unknown; roles?: unknown; replied_user?: unknown };
  if (m.parse !== undefined) {
    if (!Array.isArray(m.parse))
      return invalidForm(fieldError(`${path}.parse`, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType'));
    for (const [i, t] of m.parse.entries()) {
      if (typeof t !== 'string' || !MENTION_TYPES.includes(t)) {
        return invalidForm(fieldError(`${path}.parse.${i}`, 'BASE_TYPE_CHOICES', `Value must be one of {'everyone', 'roles', 'users'}.`));
      }
    }
  }
  for (const kind of ['users', 'roles'] as const) {
    const ids = m[kind];
    if (ids === undefined) continue;
    if (!Array.isArray(ids))
      return invalidForm(fieldError(`${path}.${kind}`, 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType'));
    if (ids.length > 100) return max(`${path}.${kind}`, 100);
    for (const [i, id] of ids.entries()) {
      if (typeof id !== 'string' || !SNOWFLAKE.test(id)) {
        return invalidForm(fieldError(`${path}.${kind}.${i}`, 'NUMBER_TYPE_COERCE', `Value "${String(id)}" is not snowflake.`));
      }
    }
    if (ids.length && Array.isArray(m.parse) && m.parse.includes(kind)) {
      return invalidForm(
        fieldError(path, 'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE', `parse:["${kind}"] and ${kind}: [ids...] are mutually exclusive.`),
      );
    }
  }
  if (m.replied_user !== undefined && typeof m.replied_user !== 'boolean') {
    return invalidForm(fieldError(`${path}.replied_user`, 'BASE_TYPE_BOOLEAN', 'Must be either true or false.'));
  }
  return null;
}

export function validateChoices(choices: unknown): ApiError | null {
  if (!Array.isArray(choices)) {
    return invalidForm(fieldError('data.choices', 'BASE_TYPE_REQUIRED', 'This field is required'));
  }
  if (choices.length > LIMITS.choices) return max('data.choices', LIMITS.choices);
  for (const [i, c] of choices.entries()) {
    const name = (c as { name?: unknown }).name;
    if (typeof name !== 'string' || name.length < 1 || name.length > LIMITS.choiceName) {
      return invalidForm(fieldError(`data.choices.${i}.name`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.'));
    }
    if (!('value' in (c as object))) {
      return invalidForm(fieldError(`data.choices.${i}.value`, 'BASE_TYPE_REQUIRED', 'This field is required'));
    }
  }
  return null;
}

const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;

interface CommandLike {
  name?: unknown;
  description?: unknown;
  type?: unknown;
  options?: CommandLike[];
  required?: unknown;
}

export function validateCommand(cmd: CommandLike, path: string): ApiError | null {
  const chatInput = cmd.type === undefined || cmd.type === 1;
  // A user or message command's name is shown as written: capitals and spaces allowed, 1 to 32.
  const validName =
    typeof cmd.name === 'string' &&
    (chatInput ? NAME.test(cmd.name) && cmd.name === cmd.name.toLowerCase() : /^.{1,32}$/u.test(cmd.name) && cmd.name.trim() === cmd.name);
  if (!validName) {
    return invalidForm(fieldError(`${path}.name`, 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid'));
  }
  if (chatInput) {
    const d = cmd.description;
    if (typeof d !== 'string' || d.length < 1 || d.length > LIMITS.commandDescription) {
      return invalidForm(fieldError(`${path}.description`, 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.'));
    }
  }
  return validateOptions(cmd.options ?? [], `${path}.options`);
}

function validateOptions(options: CommandLike[], path: string): ApiError | null {
  if (options.length > LIMITS.commandOptions) return max(path, LIMITS.commandOptions);
  let seenOptional = false;
  for (const [i, opt] of options.entries()) {
    // Subcommands (1) and groups (2) have their own nested option lists.
    const error = validateCommand({ ...opt, type: 1 }, `${path}.${i}`);
    if (error) return error;
    if (opt.required === true && seenOptional) {
      return invalidForm(
        fieldError(
          `${path}.${i}.required`,
          'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID',
          'Required options must be placed before non-required options',
        ),
      );
    }
    if (opt.required !== true && opt.type !== 1 && opt.type !== 2) seenOptional = true;
  }
  return null;
}

type Json = Record<string, unknown>;
const isJson = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Message components as Discord checks them: at most 5 action rows; a row holds up to 5 buttons
 * or one select menu alone; custom ids at most 100 characters and unique in the message; a select
 * at most 25 options, each label and value at most 100.
 */
export function componentError(components: unknown): ApiError | null {
  if (components === undefined || components === null) return null;
  if (!Array.isArray(components)) return invalidForm(fieldError('components', 'BASE_TYPE_ARRAY', 'Must be an array'));
  if (components.length > LIMITS.actionRows) return max('components', LIMITS.actionRows);
  const ids = new Set<string>();
  for (const [i, row] of components.entries()) {
    const path = `components.${i}`;
    if (!isJson(row) || row.type !== 1 || !Array.isArray(row.components) || row.components.length === 0) {
      return invalidForm(fieldError(path, 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'An action row needs 1 to 5 components'));
    }
    const inner = row.components as unknown[];
    const selects = inner.filter((c) => isJson(c) && c.type !== 2).length;
    if (inner.length > LIMITS.rowButtons || (selects > 0 && inner.length > 1)) {
      return invalidForm(
        fieldError(`${path}.components`, 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'The specified component exceeds the maximum width'),
      );
    }
    for (const [j, c] of inner.entries()) {
      const at = `${path}.components.${j}`;
      if (!isJson(c)) return invalidForm(fieldError(at, 'BASE_TYPE_REQUIRED', 'This field is required'));
      const id = c.custom_id;
      if (c.type !== 2 || c.style !== 5) {
        if (typeof id !== 'string' || id.length < 1 || id.length > LIMITS.customId) return max(`${at}.custom_id`, LIMITS.customId);
        if (ids.has(id))
          return invalidForm(fieldError(`${at}.custom_id`, 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated'));
        ids.add(id);
      }
      if (c.type === 2 && typeof c.label === 'string' && c.label.length > LIMITS.buttonLabel) return max(`${at}.label`, LIMITS.buttonLabel);
      if (c.placeholder !== undefined && (typeof c.placeholder !== 'string' || c.placeholder.length > LIMITS.placeholder))
        return max(`${at}.placeholder`, LIMITS.placeholder);
      if (Array.isArray(c.options)) {
        if (c.options.length > LIMITS.selectOptions) return max(`${at}.options`, LIMITS.selectOptions);
        for (const [k, o] of c.options.entries()) {
          const opt = isJson(o) ? o : {};
          for (const key of ['label', 'value'] as const) {
            const v = opt[key];
            if (typeof v !== 'string' || v.length < 1 || v.length > LIMITS.optionText)
              return max(`${at}.options.${k}.${key}`, LIMITS.optionText);
          }
        }
      }
    }
  }
  return null;
}
