import type { Api } from 'grammy';
import type { BotCommand } from 'grammy/types';
import type { Logger } from '../../src/log.js';

/**
 * What Telegram shows of polbot before anyone asks anything: the command menu (when a person types
 * `/`) and the descriptions (in an empty chat, and on its profile), one of each per language
 * Telegram shows them in. Each is written only when it differs from what Telegram already has, so
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

/** In an empty private chat, up to 512 characters; and on the profile and in share links, up to 120. */
export const DESCRIPTIONS: Readonly<Record<string, { description: string; short: string }>> = {
  '': {
    description:
      'Crypto risk at a glance: the Probability of Loss of a project or exchange (lower is safer), its rating, category scores (higher is better), red flags and a chart.\n\nTry /pol binance, /pol compare binance, kraken or /pol help. In any chat, type @ and my name, then a project.',
    short: 'Probability of Loss, ratings and red flags of crypto projects and exchanges: /pol binance',
  },
  de: {
    description:
      'Krypto-Risiko auf einen Blick: die Verlustwahrscheinlichkeit (PoL, niedriger ist sicherer) eines Projekts oder einer Börse, Rating, Kategorie-Scores (höher ist besser), Warnsignale und ein Chart.\n\nProbiere /pol binance oder /pol help.',
    short: 'Verlustwahrscheinlichkeit, Ratings und Warnsignale von Krypto-Projekten und Börsen: /pol binance',
  },
  es: {
    description:
      'El riesgo cripto de un vistazo: la probabilidad de pérdida (PoL, más baja es más segura) de un proyecto o exchange, su rating, puntuaciones por categoría (más alta es mejor), alertas y un gráfico.\n\nPrueba /pol binance o /pol help.',
    short: 'Probabilidad de pérdida, ratings y alertas de proyectos y exchanges cripto: /pol binance',
  },
  pt: {
    description:
      'Risco cripto num relance: a probabilidade de perda (PoL, mais baixa é mais segura) de um projeto ou corretora, o rating, notas por categoria (mais alta é melhor), sinais de alerta e um gráfico.\n\nExperimente /pol binance ou /pol help.',
    short: 'Probabilidade de perda, ratings e alertas de projetos e corretoras cripto: /pol binance',
  },
  ru: {
    description:
      'Крипто-риск с первого взгляда: вероятность потерь (PoL, чем ниже, тем безопаснее) проекта или биржи, рейтинг, оценки по категориям (чем выше, тем лучше), тревожные сигналы и график.\n\nПопробуйте /pol binance или /pol help.',
    short: 'Вероятность потерь, рейтинги и тревожные сигналы криптопроектов и бирж: /pol binance',
  },
  uk: {
    description:
      'Крипторизик з першого погляду: ймовірність втрат (PoL, що нижча, то безпечніше) проєкту чи біржі, рейтинг, оцінки за категоріями (що вища, то краще), тривожні сигнали та графік.\n\nСпробуйте /pol binance або /pol help.',
    short: 'Ймовірність втрат, рейтинги та тривожні сигнали криптопроєктів і бірж: /pol binance',
  },
};

const same = (a: readonly BotCommand[], b: readonly BotCommand[]) =>
  a.length === b.length && a.every((c, i) => c.command === b[i]!.command && c.description === b[i]!.description);

/** Returns the languages written (`''` for the default); an empty list when Telegram had them all. */
export async function registerCommands(api: Api, log: Logger): Promise<string[]> {
  const written: string[] = [];
  for (const [language, commands] of Object.entries(COMMAND_LISTS)) {
    const scope = language ? { language_code: language as 'en' } : {};
    const current = await api.getMyCommands(scope);
    if (same(current, commands)) continue;
    await api.setMyCommands([...commands], scope);
    written.push(language);
  }
  for (const [language, text] of Object.entries(DESCRIPTIONS)) {
    const scope = language ? { language_code: language as 'en' } : {};
    const [long, short] = await Promise.all([api.getMyDescription(scope), api.getMyShortDescription(scope)]);
    let changed = false;
    if (long.description !== text.description) {
      await api.setMyDescription(text.description, scope);
      changed = true;
    }
    if (short.short_description !== text.short) {
      await api.setMyShortDescription(text.short, scope);
      changed = true;
    }
    if (changed && !written.includes(language)) written.push(language);
  }
  if (written.length) log.info({ languages: written.map((l) => l || 'default') }, 'telegram command menu and descriptions written');
  return written;
}
