import type { Api } from 'grammy';
import type { BotCommand } from 'grammy/types';
import type { Logger } from '../../src/log.js';

/**
 * The bot's command menu, as Telegram shows it when a person types `/`: one list per language
 * Telegram shows descriptions in, written only when it differs from what Telegram already has, so
 * replicas starting together and restarts make no writes at all.
 */

/** The default list (no language) and the languages with descriptions of their own. */
export const COMMAND_LISTS: Readonly<Record<string, readonly BotCommand[]>> = {
  '': [
    { command: 'pol', description: 'Risk card: /pol binance · /pol help for everything' },
    { command: 'help', description: 'What polbot answers, with examples' },
  ],
  de: [
    { command: 'pol', description: 'Risikokarte: /pol binance · /pol help für alles' },
    { command: 'help', description: 'Was polbot beantwortet, mit Beispielen' },
  ],
  es: [
    { command: 'pol', description: 'Ficha de riesgo: /pol binance · /pol help para todo' },
    { command: 'help', description: 'Qué responde polbot, con ejemplos' },
  ],
  pt: [
    { command: 'pol', description: 'Cartão de risco: /pol binance · /pol help para tudo' },
    { command: 'help', description: 'O que o polbot responde, com exemplos' },
  ],
  ru: [
    { command: 'pol', description: 'Карточка риска: /pol binance · /pol help — всё остальное' },
    { command: 'help', description: 'Что умеет polbot, с примерами' },
  ],
  uk: [
    { command: 'pol', description: 'Картка ризику: /pol binance · /pol help — усе інше' },
    { command: 'help', description: 'Що вміє polbot, з прикладами' },
  ],
};

const same = (a: readonly BotCommand[], b: readonly BotCommand[]) =>
  a.length === b.length && a.every((c, i) => c.command === b[i]!.command && c.description === b[i]!.description);

/** Returns the languages written (`''` for the default list); an empty list when Telegram had them all. */
export async function registerCommands(api: Api, log: Logger): Promise<string[]> {
  const written: string[] = [];
  for (const [language, commands] of Object.entries(COMMAND_LISTS)) {
    const scope = language ? { language_code: language as 'en' } : {};
    const current = await api.getMyCommands(scope);
    if (same(current, commands)) continue;
    await api.setMyCommands([...commands], scope);
    written.push(language);
  }
  if (written.length) log.info({ languages: written.map((l) => l || 'default') }, 'telegram command menu written');
  return written;
}
