import type { DataMethod } from '../source.js';

/**
 * The tools polbot calls and the arguments it passes: what "the tool list has drifted" is
 * measured against. A tool that is gone, has lost a property polbot sends, or now requires one
 * polbot does not send, would fail every call that needs it.
 */
export const TOOL_CONTRACT: Readonly<Record<string, readonly string[]>> = {
  check_health: [],
  resolve_project_slug: ['query'],
  get_projects_list: [],
  get_project_security_score: ['slug'],
  get_project_financial_score: ['slug'],
  get_project_operational_score: ['slug'],
  get_project_reputational_score: ['slug'],
  get_project_regulatory_score: ['slug'],
  get_exchange_security_score: ['slug'],
  get_exchange_transparency_score: ['slug'],
  get_exchange_solvency_score: ['slug'],
  get_project_categories_scores_dynamic: ['slug', 'days'],
  get_exchange_categories_scores_dynamic: ['slug', 'days'],
  get_project_red_flags: ['slug'],
  get_project_social_fraud: ['slug'],
  get_project_public_registration: ['slug'],
  get_project_certifications: ['slug'],
  get_project_team_track_record: ['slug'],
  get_project_github_activity: ['slug'],
  get_project_age: ['slug'],
  get_project_market_data: ['slug'],
  get_project_proof_of_voice_pros_and_cons: ['slug'],
  get_project_proof_of_voice_expert_reviews: ['slug'],
};

interface ListedTool {
  name: string;
  inputSchema?: { properties?: Record<string, unknown>; required?: string[] };
}

/** Each difference between the listed tools and the contract, in a few words; empty when they agree. */
export function toolDrift(tools: readonly ListedTool[]): string[] {
  const byName = new Map(tools.map((t) => [t.name, t]));
  const problems: string[] = [];
  const missing = Object.keys(TOOL_CONTRACT).filter((name) => !byName.has(name));
  if (missing.length) problems.push(`missing ${missing.length === 1 ? 'tool' : 'tools'}: ${missing.join(', ')}`);
  for (const [name, sent] of Object.entries(TOOL_CONTRACT)) {
    const tool = byName.get(name);
    if (!tool) continue;
    const properties = Object.keys(tool.inputSchema?.properties ?? {});
    const lost = sent.filter((p) => !properties.includes(p));
    const newlyRequired = (tool.inputSchema?.required ?? []).filter((p) => !sent.includes(p));
    if (lost.length) problems.push(`${name} no longer takes ${lost.map((p) => `"${p}"`).join(', ')}`);
    if (newlyRequired.length) problems.push(`${name} now requires ${newlyRequired.map((p) => `"${p}"`).join(', ')}`);
  }
  return problems;
}

/** What the tools answer without REST (see the tool document's table); everything else needs REST. */
export const TOOL_BACKED: ReadonlySet<DataMethod> = new Set<DataMethod>([
  'resolveProject',
  'byCategory',
  'byCategoryChart',
  'categoryScore',
  'redFlags',
  'socialFraud',
  'registration',
  'certifications',
  'team',
  'githubActivity',
  'age',
  'marketData',
  'voiceProsCons',
  'voiceReviews',
  'health',
]);
