import type { SimProject } from '../data/model.js';
import { ratingForPol } from '../data/scales.js';
import type { SimStore } from '../data/store.js';
import { scoreObject } from './entity.js';

/** Project records and sections. MCP tools read the same functions as the REST routes. */

export function record(store: SimStore, p: SimProject) {
  const pol = p.pol[store.lastIndex]!;
  return {
    slug: p.slug,
    name: p.name,
    ticker: p.ticker,
    category: p.category,
    chains: p.chains,
    website: `https://${p.slug.replace(/-/g, '')}.example`,
    launchedAt: p.launchedAt,
    marketData: p.market,
    pol,
    rating: ratingForPol(pol),
  };
}

const current = (store: SimStore, p: SimProject, category: keyof SimProject['categories']) =>
  scoreObject(p.categories[category], store.lastIndex);

export function security(store: SimStore, p: SimProject) {
  return { slug: p.slug, score: current(store, p, 'security'), certifications: p.certifications, audits: p.audits };
}

export function financial(store: SimStore, p: SimProject) {
  return {
    slug: p.slug,
    score: current(store, p, 'financial'),
    marketData: p.market,
    inflationRate: p.inflation[store.lastIndex]!,
  };
}

export function reputational(store: SimStore, p: SimProject) {
  return {
    slug: p.slug,
    score: current(store, p, 'reputational'),
    mmRedFlags: p.redFlags.mm,
    investorRedFlags: p.redFlags.investor,
    social: p.social,
  };
}

export function regulatory(store: SimStore, p: SimProject) {
  return { slug: p.slug, score: current(store, p, 'regulatory'), ...p.registration };
}

export function operational(store: SimStore, p: SimProject) {
  return {
    slug: p.slug,
    score: current(store, p, 'operational'),
    projectLaunchedAt: p.launchedAt,
    protocolLaunchedAt: p.protocolLaunchedAt,
    github: p.github,
    team: p.team,
  };
}

export function proofOfVoice(store: SimStore, p: SimProject) {
  return {
    slug: p.slug,
    voiceScore: p.voiceScores[store.lastIndex]!,
    pros: p.voice.pros,
    cons: p.voice.cons,
    reviews: p.voice.reviews,
  };
}

function seriesChart(store: SimStore, p: SimProject, values: number[], key: string, days: number | undefined) {
  const [start, end] = store.windowIndices(days);
  const points = [];
  for (let i = start; i < end; i++) points.push({ timestamp: store.data.days[i]!, [key]: values[i]! });
  return { slug: p.slug, days: days ?? null, points };
}

export function proofOfVoiceChart(store: SimStore, p: SimProject, days: number | undefined) {
  return seriesChart(store, p, p.voiceScores, 'score', days);
}

export function inflationChart(store: SimStore, p: SimProject, days: number | undefined) {
  return seriesChart(store, p, p.inflation, 'inflation', days);
}
