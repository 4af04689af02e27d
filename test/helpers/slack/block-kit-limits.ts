/**
 * Block Kit limits for messages, as Slack's reference states them, checked independently of the
 * adapter's own truncation code: a message that passes here is one Slack would accept whole.
 *
 * Sources: Block Kit reference for blocks (header, section, context, actions, image, divider),
 * block elements (button, static select) and composition objects (text, option); chat.postMessage
 * for the message.
 */

export const SLACK_LIMITS = {
  blocksPerMessage: 50,
  blockId: 255,
  headerText: 150,
  sectionText: 3000,
  sectionFields: 10,
  sectionFieldText: 2000,
  contextElements: 10,
  contextText: 3000,
  actionsElements: 25,
  actionId: 255,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  selectOptions: 100,
  selectPlaceholder: 150,
  optionText: 75,
  optionValue: 150,
  imageUrl: 3000,
  imageAltText: 2000,
  imageTitle: 2000,
  /** Slack truncates messages with more visible text than about this. */
  messageVisibleText: 12_000,
  /** chat.postMessage's `text` argument. */
  messageTopLevelText: 40_000,
} as const;

export interface ValidateOptions {
  /** A stricter budget than Slack's, to check that a message stays well under the limit. */
  maxVisibleText?: number;
  /** Ephemeral and response_url messages may omit the fallback text; channel messages should not. */
  requireFallbackText?: boolean;
}

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every violation found, as `path: problem`; an empty list means the message is valid. */
export function validateMessage(message: { text?: unknown; blocks?: unknown }, options: ValidateOptions = {}): string[] {
  const problems: string[] = [];
  const add = (path: string, problem: string): void => {
    problems.push(`${path}: ${problem}`);
  };
  const actionIds = new Set<string>();
  const blockIds = new Set<string>();
  let visible = 0;

  const textObject = (path: string, value: unknown, max: number, kinds: readonly string[] = ['plain_text', 'mrkdwn']): void => {
    if (!isObj(value)) return add(path, 'missing text object');
    if (typeof value.type !== 'string' || !kinds.includes(value.type))
      add(path, `text type must be one of ${kinds.join('/')}, got ${String(value.type)}`);
    if (typeof value.text !== 'string' || value.text.length === 0) return add(path, 'text must be a non-empty string');
    if (value.text.length > max) add(path, `text is ${value.text.length} characters, limit ${max}`);
    if (value.type === 'mrkdwn' && 'emoji' in value) add(path, 'emoji is only valid on plain_text');
    visible += value.text.length;
  };

  const actionId = (path: string, id: unknown): void => {
    if (typeof id !== 'string' || id.length === 0) return add(path, 'element needs an action_id');
    if (id.length > SLACK_LIMITS.actionId) add(path, `action_id longer than ${SLACK_LIMITS.actionId}`);
    if (actionIds.has(id)) add(path, `duplicate action_id ${id}`);
    actionIds.add(id);
  };

  const staticSelect = (path: string, value: Obj): void => {
    actionId(path, value.action_id);
    textObject(`${path}.placeholder`, value.placeholder, SLACK_LIMITS.selectPlaceholder, ['plain_text']);
    const options = value.options;
    if (!Array.isArray(options) || options.length === 0) return add(`${path}.options`, 'a static select needs options');
    if (options.length > SLACK_LIMITS.selectOptions)
      add(`${path}.options`, `${options.length} options, limit ${SLACK_LIMITS.selectOptions}`);
    const values: unknown[] = [];
    options.forEach((o: unknown, k) => {
      if (!isObj(o)) return add(`${path}.options[${k}]`, 'option must be an object');
      textObject(`${path}.options[${k}].text`, o.text, SLACK_LIMITS.optionText, ['plain_text']);
      if (typeof o.value !== 'string' || o.value.length === 0 || o.value.length > SLACK_LIMITS.optionValue)
        add(`${path}.options[${k}]`, `value must be 1 to ${SLACK_LIMITS.optionValue} characters`);
      values.push(o.value);
    });
    if (value.initial_option !== undefined && !(isObj(value.initial_option) && values.includes(value.initial_option.value)))
      add(`${path}.initial_option`, 'not one of the options');
  };

  const element = (path: string, value: unknown): void => {
    if (!isObj(value)) return add(path, 'element must be an object');
    if (value.type === 'static_select') return staticSelect(path, value);
    if (value.type === 'external_select') {
      actionId(path, value.action_id);
      textObject(`${path}.placeholder`, value.placeholder, SLACK_LIMITS.selectPlaceholder, ['plain_text']);
      if (value.min_query_length !== undefined && !(Number.isInteger(value.min_query_length) && (value.min_query_length as number) >= 0))
        add(path, 'min_query_length must be a whole number');
      return;
    }
    if (value.type !== 'button') return add(path, `unexpected element type ${String(value.type)}`);
    textObject(`${path}.text`, value.text, SLACK_LIMITS.buttonText, ['plain_text']);
    actionId(path, value.action_id);
    if (value.value !== undefined) {
      if (typeof value.value !== 'string') add(path, 'value must be a string');
      else if (value.value.length > SLACK_LIMITS.buttonValue)
        add(path, `value is ${value.value.length} characters, limit ${SLACK_LIMITS.buttonValue}`);
    }
    if (typeof value.url === 'string' && value.url.length > SLACK_LIMITS.buttonUrl) add(path, 'url too long');
    if (value.style !== undefined && value.style !== 'primary' && value.style !== 'danger')
      add(path, `invalid style ${String(value.style)}`);
  };

  const blocks = message.blocks;
  if (blocks !== undefined) {
    if (!Array.isArray(blocks)) return ['blocks: must be an array'];
    if (blocks.length > SLACK_LIMITS.blocksPerMessage) add('blocks', `${blocks.length} blocks, limit ${SLACK_LIMITS.blocksPerMessage}`);
    blocks.forEach((block: unknown, i) => {
      const path = `blocks[${i}]`;
      if (!isObj(block)) return add(path, 'block must be an object');
      if (block.block_id !== undefined) {
        if (typeof block.block_id !== 'string' || block.block_id.length === 0 || block.block_id.length > SLACK_LIMITS.blockId)
          add(path, 'invalid block_id');
        else if (blockIds.has(block.block_id)) add(path, `duplicate block_id ${block.block_id}`);
        else blockIds.add(block.block_id);
      }
      switch (block.type) {
        case 'header':
          textObject(`${path}.text`, block.text, SLACK_LIMITS.headerText, ['plain_text']);
          break;
        case 'section': {
          if (block.text === undefined && block.fields === undefined) add(path, 'section needs text or fields');
          if (block.text !== undefined) textObject(`${path}.text`, block.text, SLACK_LIMITS.sectionText);
          if (block.fields !== undefined) {
            if (!Array.isArray(block.fields) || block.fields.length === 0) add(`${path}.fields`, 'fields must be a non-empty array');
            else {
              if (block.fields.length > SLACK_LIMITS.sectionFields)
                add(`${path}.fields`, `${block.fields.length} fields, limit ${SLACK_LIMITS.sectionFields}`);
              block.fields.forEach((f: unknown, j) => textObject(`${path}.fields[${j}]`, f, SLACK_LIMITS.sectionFieldText));
            }
          }
          if (block.accessory !== undefined) element(`${path}.accessory`, block.accessory);
          break;
        }
        case 'context': {
          const elements = block.elements;
          if (!Array.isArray(elements) || elements.length === 0) add(`${path}.elements`, 'context needs elements');
          else {
            if (elements.length > SLACK_LIMITS.contextElements)
              add(`${path}.elements`, `${elements.length} elements, limit ${SLACK_LIMITS.contextElements}`);
            elements.forEach((e: unknown, j) => textObject(`${path}.elements[${j}]`, e, SLACK_LIMITS.contextText));
          }
          break;
        }
        case 'actions': {
          const elements = block.elements;
          if (!Array.isArray(elements) || elements.length === 0) add(`${path}.elements`, 'actions needs elements');
          else {
            if (elements.length > SLACK_LIMITS.actionsElements)
              add(`${path}.elements`, `${elements.length} elements, limit ${SLACK_LIMITS.actionsElements}`);
            elements.forEach((e: unknown, j) => element(`${path}.elements[${j}]`, e));
          }
          break;
        }
        case 'image': {
          if (typeof block.image_url !== 'string' || block.image_url.length === 0) add(path, 'image needs image_url');
          else if (block.image_url.length > SLACK_LIMITS.imageUrl) add(path, 'image_url too long');
          if (typeof block.alt_text !== 'string' || block.alt_text.length === 0) add(path, 'image needs alt_text');
          else {
            if (block.alt_text.length > SLACK_LIMITS.imageAltText) add(path, 'alt_text too long');
            visible += block.alt_text.length;
          }
          if (block.title !== undefined) textObject(`${path}.title`, block.title, SLACK_LIMITS.imageTitle, ['plain_text']);
          break;
        }
        case 'divider':
          break;
        case 'table': {
          // docs.slack.dev/reference/block-kit/blocks/table-block: at most 100 rows of at most 20 cells, one table a message.
          const rows = block.rows;
          if (!Array.isArray(rows) || rows.length === 0) add(`${path}.rows`, 'table needs rows');
          else {
            if (rows.length > 100) add(`${path}.rows`, `${rows.length} rows, limit 100`);
            rows.forEach((row: unknown, r) => {
              if (!Array.isArray(row) || row.length === 0 || row.length > 20) return add(`${path}.rows[${r}]`, 'a row is 1 to 20 cells');
              row.forEach((cell: unknown, c) => {
                if (!isObj(cell) || cell.type !== 'raw_text' || typeof cell.text !== 'string' || cell.text === '')
                  add(`${path}.rows[${r}][${c}]`, 'a cell is raw_text with text');
                else visible += cell.text.length;
              });
            });
          }
          if (blocks.filter((b: unknown) => isObj(b) && b.type === 'table').length > 1) add(path, 'one table a message');
          break;
        }
        default:
          add(path, `unexpected block type ${String(block.type)}`);
      }
    });
  }

  const text = message.text;
  if (text !== undefined && typeof text !== 'string') add('text', 'must be a string');
  if (typeof text === 'string' && text.length > SLACK_LIMITS.messageTopLevelText) add('text', 'too long');
  if (options.requireFallbackText && (typeof text !== 'string' || text.trim() === ''))
    add('text', 'a fallback text is required with blocks');
  if (blocks === undefined && (typeof text !== 'string' || text === '')) add('message', 'needs text or blocks');

  const maxVisible = Math.min(options.maxVisibleText ?? SLACK_LIMITS.messageVisibleText, SLACK_LIMITS.messageVisibleText);
  if (visible > maxVisible) add('message', `${visible} characters of visible text, limit ${maxVisible}`);
  return problems;
}

/** All mrkdwn and plain_text strings of a message (blocks and fallback), for escaping checks. */
export function messageTexts(message: { text?: unknown; blocks?: unknown }): { mrkdwn: string[]; plain: string[] } {
  const mrkdwn: string[] = typeof message.text === 'string' ? [message.text] : [];
  const plain: string[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) return v.forEach(walk);
    if (!isObj(v)) return;
    if (typeof v.text === 'string' && v.type === 'mrkdwn') mrkdwn.push(v.text);
    // A table cell's raw_text is shown as written, like plain_text: no mentions, no formatting.
    if (typeof v.text === 'string' && (v.type === 'plain_text' || v.type === 'raw_text')) plain.push(v.text);
    if (typeof v.alt_text === 'string') plain.push(v.alt_text);
    for (const child of Object.values(v)) walk(child);
  };
  walk(message.blocks);
  return { mrkdwn, plain };
}
