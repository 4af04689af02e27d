/**
 * Which way imports may point. app/ (the CLI and the bot's wiring) may use anything; adapters use
 * the command core's public surface; commands/ uses src/; src/ uses neither, and nothing is a
 * cycle, not even through type-only imports.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'A cycle, even of type-only imports, means two parts that cannot be understood apart.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'src-not-to-commands',
      severity: 'error',
      comment: 'src/ is the core the commands stand on; digests reach commands through an interface, never an import.',
      from: { path: '^src/' },
      to: { path: '^commands/' },
    },
    {
      name: 'core-not-to-adapters',
      severity: 'error',
      comment: 'Neither src/ nor commands/ may know a chat platform.',
      from: { path: '^(src|commands)/' },
      to: { path: '^adapters/' },
    },
    {
      name: 'commands-build-nothing',
      severity: 'error',
      comment:
        'The command core is handed its sources, charts, limits and stores: commands/ imports nothing that builds or starts them (types are fine: they build nothing).',
      from: { path: '^commands/' },
      to: {
        path: '^src/(http|ops|sim|db)/|^src/api/(upstream|failover)\\.ts$|^src/api/rest/(source|http)\\.ts$|^src/api/mcp/(source|connection)\\.ts$|^src/api/cache/cached-source\\.ts$|^src/charts/(renderer|local|quickchart)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'core-names-no-platform',
      severity: 'error',
      comment: 'Nothing under src/ or commands/ uses a chat platform library: platforms live in adapters/.',
      from: { path: '^(src|commands)/' },
      to: { path: '(^|/)node_modules/(@slack/|discord\\.js/|@discordjs/|discord-api-types/|grammy/|@grammyjs/)' },
    },
    {
      name: 'not-to-app',
      severity: 'error',
      comment: 'app/ composes everything; nothing may depend on the composition root.',
      from: { path: '^(src|commands|adapters)/' },
      to: { path: '^app/' },
    },
    {
      name: 'adapters-use-core-surface',
      severity: 'error',
      comment:
        'Adapters see the command core through commands/core/index.ts alone: which commands there are and what their options suggest is the core’s business, rendered by the adapters.',
      from: { path: '^adapters/' },
      to: { path: '^commands/', pathNot: '^commands/core/index\\.ts$' },
    },
    {
      name: 'adapters-apart',
      severity: 'error',
      comment: 'One platform adapter never reaches into another; what they share lives in src/.',
      from: { path: '^adapters/([^/]+)/' },
      to: { path: '^adapters/([^/]+)/', pathNot: '^adapters/$1/' },
    },
    {
      name: 'no-test-code-in-product',
      severity: 'error',
      from: { path: '^(src|commands|adapters|app|bin)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};
