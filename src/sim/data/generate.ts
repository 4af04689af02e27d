import { EXCHANGES, EXTRA_TOKENS, PROJECTS, type ExchangeSeed, type ProjectSeed } from './catalog.js';
import type { CategorySeries, Findings, LostFundsIncident, MetricDef, SimData, SimExchange, SimProject, SimToken } from './model.js';
import { Rng } from './rng.js';
import { CONFIDENCES, DAY, EXCHANGE_CATEGORIES, PROJECT_CATEGORIES, polForScore, round } from './scales.js';

export const HISTORY_DAYS = 730;

export interface GenerateOptions {
  seed: number;
  /** Last day of history; defaults to today (UTC). Fix it for byte-identical output. */
  asOf?: Date;
  /**
   * Synthetic projects added after the catalog, for load tests that need a larger universe than
   * the named brands. The catalog's own entities come out exactly as without them.
   */
  extraProjects?: number;
}

export function utcMidnight(date: Date): number {
  return Math.floor(date.getTime() / 1000 / DAY) * DAY;
}

export function generate({ seed, asOf = new Date(), extraProjects = 0 }: GenerateOptions): SimData {
  const last = utcMidnight(asOf);
  const days = Array.from({ length: HISTORY_DAYS }, (_, i) => last - (HISTORY_DAYS - 1 - i) * DAY);
  const projects = PROJECTS.map((p) => generateProject(seed, p, days));
  const tokens = buildTokens(seed, projects);
  const exchanges = EXCHANGES.map((e) => generateExchange(seed, e, days, tokens));
  const rng = Rng.derive(seed, 'global');
  const lostFunds = buildLostFunds(rng, exchanges);
  // Drawn from the catalog only, so extra projects never change what the catalog's entities show.
  const trending = {
    projects: rng.sample(projects, 10).map((p) => p.slug),
    exchanges: rng.sample(exchanges, 8).map((e) => e.slug),
  };
  const extras = syntheticProjectSeeds(seed, extraProjects).map((p) => generateProject(seed, p, days));
  return { seed, days, projects: [...projects, ...extras], exchanges, tokens, lostFunds, trending };
}

const SYNTHETIC_CATEGORIES = ['DeFi', 'Layer 1', 'Layer 2', 'Gaming', 'Infrastructure', 'Payments'];
const SYNTHETIC_CHAINS = ['Ethereum', 'Solana', 'Arbitrum', 'Base', 'BNB Chain', 'Polygon'];

/** `synthetic-0001`, `Synthetic 0001`, `SYN0001`...: names no catalog entry shares a word with. */
export function syntheticProjectSeeds(seed: number, count: number): ProjectSeed[] {
  if (!Number.isInteger(count) || count < 0 || count > 100_000)
    throw new Error(`extraProjects must be an integer from 0 to 100000: ${count}`);
  const rng = Rng.derive(seed, 'synthetic-projects');
  return Array.from({ length: count }, (_, i) => {
    const n = String(i + 1).padStart(4, '0');
    const launched = new Date(Date.UTC(rng.int(2016, 2024), rng.int(0, 11), rng.int(1, 28))).toISOString().slice(0, 10);
    return {
      slug: `synthetic-${n}`,
      name: `Synthetic ${n}`,
      ticker: `SYN${n}`,
      category: rng.pick(SYNTHETIC_CATEGORIES),
      chains: rng.sample(SYNTHETIC_CHAINS, rng.int(1, 3)),
      quality: round(rng.range(0.1, 0.95), 2),
      launched,
    };
  });
}

/** Mean-reverting daily walk, so two years of history wander plausibly without drifting off the scale. */
function walk(rng: Rng, n: number, target: number, volatility: number, min: number, max: number): number[] {
  const out = new Array<number>(n);
  let value = Math.min(max, Math.max(min, target + rng.normal() * volatility * 4));
  for (let i = 0; i < n; i++) {
    value += (target - value) * 0.04 + rng.normal() * volatility;
    // An occasional shock gives charts the jumps that real rating changes cause.
    if (rng.chance(0.006)) value += rng.normal() * volatility * 12;
    value = Math.min(max, Math.max(min, value));
    out[i] = round(value, 1);
  }
  return out;
}

function categorySeries(rng: Rng, n: number, quality: number, pinned: number | null): CategorySeries {
  const confidence = rng.pick(CONFIDENCES);
  if (pinned !== null) return { scores: new Array<number>(n).fill(pinned), confidence };
  const target = Math.min(98, Math.max(3, quality * 100 + rng.normal() * 9));
  return { scores: walk(rng, n, target, 1.1, 0, 100), confidence };
}

function polSeries(rng: Rng, categories: CategorySeries[], pinned: boolean): number[] {
  const n = categories[0]?.scores.length ?? 0;
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (const c of categories) sum += c.scores[i] ?? 0;
    const base = polForScore(sum / categories.length);
    const noise = pinned ? 1 : 1 + rng.normal() * 0.03;
    out[i] = round(Math.min(0.999, Math.max(0.0001, base * noise)), 5);
  }
  return out;
}

const PROJECT_METRICS: readonly Omit<MetricDef, 'offset'>[] = [
  { metric: 'smart_contract_audits', category: 'security', label: 'Smart-contract audits', weight: 0.1 },
  { metric: 'bug_bounty_coverage', category: 'security', label: 'Bug bounty coverage', weight: 0.06 },
  { metric: 'security_certifications', category: 'security', label: 'Security certifications', weight: 0.04 },
  { metric: 'liquidity_depth', category: 'financial', label: 'Liquidity depth', weight: 0.1 },
  { metric: 'token_inflation', category: 'financial', label: 'Token inflation', weight: 0.06 },
  { metric: 'holder_concentration', category: 'financial', label: 'Holder concentration', weight: 0.06 },
  { metric: 'development_activity', category: 'operational', label: 'Development activity', weight: 0.08 },
  { metric: 'team_track_record', category: 'operational', label: 'Team track record', weight: 0.06 },
  { metric: 'longevity', category: 'operational', label: 'Longevity', weight: 0.06 },
  { metric: 'market_maker_red_flags', category: 'reputational', label: 'Market-maker red flags', weight: 0.08 },
  { metric: 'investor_red_flags', category: 'reputational', label: 'Investor red flags', weight: 0.06 },
  { metric: 'social_authenticity', category: 'reputational', label: 'Social authenticity', weight: 0.06 },
  { metric: 'public_registration', category: 'regulatory', label: 'Public registration', weight: 0.1 },
  { metric: 'jurisdiction_quality', category: 'regulatory', label: 'Jurisdiction quality', weight: 0.08 },
];

const EXCHANGE_METRICS: readonly Omit<MetricDef, 'offset'>[] = [
  { metric: 'penetration_testing', category: 'security', label: 'Penetration testing', weight: 0.12 },
  { metric: 'bug_bounty', category: 'security', label: 'Bug bounty', weight: 0.1 },
  { metric: 'incident_history', category: 'security', label: 'Incident history', weight: 0.12 },
  { metric: 'proof_of_reserves', category: 'transparency', label: 'Proof of reserves', weight: 0.14 },
  { metric: 'team_disclosure', category: 'transparency', label: 'Team disclosure', weight: 0.08 },
  { metric: 'order_book_transparency', category: 'transparency', label: 'Order-book transparency', weight: 0.1 },
  { metric: 'reserve_ratio', category: 'solvency', label: 'Reserve ratio', weight: 0.2 },
  { metric: 'liabilities_coverage', category: 'solvency', label: 'Liabilities coverage', weight: 0.14 },
];

const MM_FLAGS = [
  'Market maker linked to wash trading on two venues',
  'Market-maker loan with undisclosed call option on supply',
  'Market maker under enforcement action in its home jurisdiction',
  'Liquidity provided by a single affiliated market maker',
];
const INVESTOR_FLAGS = [
  'Concentrated early-investor unlock within 90 days',
  'Lead investor tied to a collapsed fund',
  'Top 10 wallets hold over 60% of circulating supply',
  'Investor allocation sold through OTC desks below market',
];
const PROS = [
  'Long record of uninterrupted operation',
  'Active, well-reviewed developer community',
  'Transparent treasury reporting',
  'Multiple independent audits published',
  'Deep liquidity on regulated venues',
];
const CONS = [
  'Governance concentrated in few wallets',
  'Roadmap milestones repeatedly delayed',
  'Opaque token unlock schedule',
  'Dependence on a single bridge',
  'Limited public information on the team',
];
const REVIEWERS = ['A. Moreau', 'K. Tanaka', 'S. Okafor', 'L. Novak', 'R. Iyer', 'M. Alvarez'];
const AUDITORS = ['Trail of Bits', 'OpenZeppelin', 'CertiK', 'Quantstamp', 'Halborn', 'Zellic'];
const JURISDICTIONS = ['Switzerland', 'Singapore', 'United States', 'Cayman Islands', 'British Virgin Islands', 'Germany', 'Panama'];

function metricsFor(rng: Rng, defs: readonly Omit<MetricDef, 'offset'>[]): MetricDef[] {
  return defs.map((d) => ({ ...d, offset: round(rng.normal() * 8, 1) }));
}

function findings(rng: Rng, pool: readonly string[], mode: 'clean' | 'flagged' | 'random'): Findings {
  if (mode === 'clean' || (mode === 'random' && !rng.chance(0.35))) return 'none_identified';
  return rng.sample(pool, rng.int(1, mode === 'flagged' ? 3 : 2));
}

function isoDate(unixSeconds: number): string {
  return new Date(unixSeconds * 1000).toISOString().slice(0, 10);
}

function generateProject(seed: number, p: ProjectSeed, days: number[]): SimProject {
  const rng = Rng.derive(seed, `project:${p.slug}`);
  const traits = new Set(p.traits ?? []);
  const pinned = traits.has('edge-top') ? 100 : traits.has('edge-bottom') ? 0 : null;
  const n = days.length;
  const categories = Object.fromEntries(
    PROJECT_CATEGORIES.map((c) => [c, categorySeries(rng, n, p.quality, pinned)]),
  ) as SimProject['categories'];
  const pol = polSeries(rng, Object.values(categories), pinned !== null);
  const flagMode = traits.has('clean') ? 'clean' : traits.has('flagged') ? 'flagged' : 'random';
  const emptyVoice = traits.has('empty-voice');
  const jurisdictionQuality = traits.has('jurisdiction-not-returned')
    ? 'not_returned'
    : traits.has('jurisdiction-empty')
      ? ''
      : (Math.min(4, Math.max(1, Math.round(4 - p.quality * 3 + rng.normal() * 0.5))) as 1 | 2 | 3 | 4);
  // Stronger projects tend to be larger: caps from ~$50M (weakest) to ~$1T (strongest).
  const marketCap = round(Math.exp(17.7 + p.quality * 9.5 + rng.normal() * 0.8), 0);
  const price = round(p.category === 'Stablecoin' ? 1 + rng.normal() * 0.001 : Math.exp(rng.range(-14, 4) + p.quality * 6), 8);
  const launchedAt = Date.parse(p.launched) / 1000;
  const heatmap = Array.from({ length: 52 }, () =>
    Array.from({ length: 7 }, () => (rng.chance(p.quality) ? rng.int(0, Math.round(30 * p.quality)) : 0)),
  );
  return {
    kind: 'project',
    slug: p.slug,
    name: p.name,
    ticker: p.ticker,
    category: p.category,
    chains: [...p.chains],
    compliance: rng.chance(p.quality) ? 'registered' : 'unregistered',
    categories,
    pol,
    metrics: metricsFor(rng, PROJECT_METRICS),
    market: {
      price,
      marketCap,
      volume24h: round(marketCap * rng.range(0.01, 0.2), 0),
      priceChange24h: round(rng.normal() * 4, 2),
      circulatingSupply: round(marketCap / price, 0),
    },
    launchedAt: p.launched,
    protocolLaunchedAt: isoDate(launchedAt + rng.int(0, 400) * DAY),
    redFlags: { mm: findings(rng, MM_FLAGS, flagMode), investor: findings(rng, INVESTOR_FLAGS, flagMode) },
    social: {
      twitterFollowers: rng.int(2_000, 8_000_000),
      twitterBotFollowersPct: round(rng.range(2, 45) * (1.3 - p.quality), 1),
      telegramMembers: rng.int(500, 900_000),
      telegramBotMembersPct: round(rng.range(1, 40) * (1.3 - p.quality), 1),
      websiteAgeDays: Math.round((days[n - 1]! - launchedAt) / DAY) + rng.int(0, 200),
      websiteTrafficTrend: rng.pick(['rising', 'stable', 'falling']),
      searchTrendScore: rng.int(0, 100),
      fakeEngagementScore: round(rng.range(0, 1) * (1.2 - p.quality), 2),
    },
    registration: {
      isPublicRegistrationPresent: rng.chance(p.quality),
      jurisdictionQuality,
      jurisdiction: rng.pick(JURISDICTIONS),
    },
    certifications: (() => {
      const ccss = rng.chance(p.quality * 0.6);
      return {
        isIso27001Present: rng.chance(p.quality * 0.5),
        isCcssPresent: ccss,
        ccssLevel: ccss ? rng.int(1, 3) : null,
        isSoc2Present: rng.chance(p.quality * 0.5),
      };
    })(),
    team: {
      isEducationRelevant: rng.chance(0.3 + p.quality * 0.6),
      isWorkExperienceRelevant: rng.chance(0.3 + p.quality * 0.6),
      isBusinessExperienceRelevant: rng.chance(0.2 + p.quality * 0.6),
    },
    github: {
      heatmap,
      commitsCount7d: heatmap[51]!.reduce((a, b) => a + b, 0),
      repository: `https://github.com/${p.slug}`,
    },
    voice: emptyVoice
      ? { pros: 'none_identified', cons: 'none_identified', reviews: 'none_identified' }
      : {
          pros: rng.sample(PROS, rng.int(1, 3)),
          cons: rng.sample(CONS, rng.int(1, 3)),
          reviews: Array.from({ length: rng.int(1, 3) }, (_, i) => ({
            author: rng.pick(REVIEWERS),
            content: `${p.name}: ${rng.pick(PROS).toLowerCase()}, but ${rng.pick(CONS).toLowerCase()}.`,
            publishedAt: new Date((days[n - 1]! - (i * 47 + rng.int(1, 40)) * DAY) * 1000).toISOString(),
          })),
        },
    voiceScores: walk(rng, n, Math.min(95, p.quality * 100 + rng.normal() * 10), 1.4, 0, 100),
    inflation: walk(rng, n, Math.max(0.2, (1 - p.quality) * 12 + rng.normal() * 2), 0.15, 0, 60),
    audits: rng.sample(AUDITORS, rng.int(0, 3)).map((auditor) => ({
      auditor,
      date: isoDate(days[rng.int(0, n - 1)]!),
    })),
  };
}

function buildTokens(seed: number, projects: SimProject[]): SimToken[] {
  const rng = Rng.derive(seed, 'tokens');
  const rated = projects.map((p) => ({
    name: p.name,
    ticker: p.ticker,
    category: p.category,
    marketCap: p.market.marketCap,
    polScore: p.pol[p.pol.length - 1]!,
    projectSlug: p.slug as string | null,
  }));
  const extra = EXTRA_TOKENS.map((t) => ({
    ...t,
    marketCap: round(Math.exp(rng.range(18, 24)), 0),
    polScore: round(rng.range(0.01, 0.5), 5),
    projectSlug: null,
  }));
  return [...rated, ...extra].map((t, i) => ({ id: i + 1, ...t }));
}

function generateExchange(seed: number, e: ExchangeSeed, days: number[], tokens: SimToken[]): SimExchange {
  const rng = Rng.derive(seed, `exchange:${e.slug}`);
  const n = days.length;
  const categories = Object.fromEntries(
    EXCHANGE_CATEGORIES.map((c) => [c, categorySeries(rng, n, e.quality, null)]),
  ) as SimExchange['categories'];
  const pol = polSeries(rng, Object.values(categories), false);
  const tradingVolume = round(Math.exp(rng.range(16, 24)) * (0.3 + e.quality), 0);
  const reservesBase = tradingVolume * rng.range(2, 12);
  const ratio = 0.85 + e.quality * 0.4;
  const reserves = e.proofOfReserves ? walk(rng, n, 100, 1.5, 40, 200).map((v) => round((v / 100) * reservesBase, 0)) : [];
  const liabilities = reserves.map((r) => round((r / ratio) * (1 + rng.normal() * 0.01), 0));
  const hasBounty = rng.chance(0.3 + e.quality * 0.7);
  const hasPenTest = rng.chance(0.2 + e.quality * 0.7);
  const lastDay = days[n - 1]!;
  return {
    kind: 'exchange',
    slug: e.slug,
    name: e.name,
    country: e.country,
    established: e.established,
    type: e.kind ?? 'cex',
    categories,
    pol,
    metrics: metricsFor(rng, EXCHANGE_METRICS),
    markers: {
      isProofOfReservesPresent: e.proofOfReserves,
      isBugBountyPresent: hasBounty,
      isPenetrationTestingPresent: hasPenTest,
    },
    tradingVolume,
    tradingVolumeChange: round(rng.normal() * 12, 2),
    listed: rng
      .sample(tokens, rng.int(20, tokens.length))
      .map((t) => t.id)
      .sort((a, b) => a - b),
    reserves,
    liabilities,
    security: {
      bugBountyMaxUsd: hasBounty ? rng.int(1, 100) * 10_000 : null,
      lastPenetrationTestAt: hasPenTest ? isoDate(lastDay - rng.int(10, 400) * DAY) : null,
      isIso27001Present: rng.chance(e.quality * 0.6),
      isSoc2Present: rng.chance(e.quality * 0.5),
    },
    transparency: {
      auditor: e.proofOfReserves ? rng.pick(['Mazars', 'Armanino', 'The Network Firm', 'Merkle-tree self-attestation']) : null,
      lastAuditAt: e.proofOfReserves ? isoDate(lastDay - rng.int(5, 120) * DAY) : null,
      isTeamPublic: rng.chance(0.3 + e.quality * 0.6),
      isOrderBookPublic: rng.chance(0.5 + e.quality * 0.5),
    },
  };
}

function buildLostFunds(rng: Rng, exchanges: SimExchange[]): LostFundsIncident[] {
  const causes = ['Hot-wallet compromise', 'Insolvency', 'Insider theft', 'Private-key leak', 'Smart-contract exploit'];
  const historic = [
    { exchange: 'Mt. Gox', date: '2014-02-24', amountUsd: 473_000_000, cause: 'Hot-wallet compromise' },
    { exchange: 'FTX', date: '2022-11-11', amountUsd: 8_000_000_000, cause: 'Insolvency' },
    { exchange: 'QuadrigaCX', date: '2019-01-15', amountUsd: 190_000_000, cause: 'Insolvency' },
  ];
  const fromRated = exchanges
    .filter((e) => e.markers.isBugBountyPresent === false || rng.chance(0.15))
    .slice(0, 8)
    .map((e) => ({
      exchange: e.name,
      slug: e.slug as string | null,
      date: `${rng.int(2016, 2025)}-${String(rng.int(1, 12)).padStart(2, '0')}-${String(rng.int(1, 28)).padStart(2, '0')}`,
      amountUsd: rng.int(2, 600) * 1_000_000,
      cause: rng.pick(causes),
    }));
  return [...historic.map((h) => ({ ...h, slug: null })), ...fromRated].sort((a, b) => a.date.localeCompare(b.date));
}
