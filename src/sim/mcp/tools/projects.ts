import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SimProject } from '../../data/model.js';
import type { SimStore } from '../../data/store.js';
import * as views from '../../views/projects.js';
import { describeFindings, defineTool, entityLabel, findProject, isResult, ok, slugInput, yesNo, type ToolDef } from './common.js';

/** Project section tools. Each reads the REST section body named in the tool document. */

const RESOLVE_FIRST = ' Resolve the slug first with resolve_project_slug.';

function projectTool(
  name: string,
  title: string,
  description: string,
  build: (store: SimStore, p: SimProject) => { text: string; fields: Record<string, unknown> },
): ToolDef {
  return defineTool({
    name,
    title,
    description: description + RESOLVE_FIRST,
    input: slugInput,
    run: ({ slug }, ctx): CallToolResult => {
      const p = findProject(ctx, slug);
      if (isResult(p)) return p;
      const { text, fields } = build(ctx.store, p);
      return ok(`${entityLabel(p)}: ${text}`, { status: 'ok', entityType: 'project', slug: p.slug, ...fields });
    },
  });
}

const usd = (n: number) => `$${n.toLocaleString('en-US', { maximumFractionDigits: n < 1 ? 8 : 2 })}`;

export const projectTools: ToolDef[] = [
  projectTool('get_project_age', 'Project age', 'Launch dates of the project and of its protocol.', (store, p) => {
    const s = views.operational(store, p);
    return {
      text: `project launched ${s.projectLaunchedAt}, protocol launched ${s.protocolLaunchedAt}.`,
      fields: { projectLaunchedAt: s.projectLaunchedAt, protocolLaunchedAt: s.protocolLaunchedAt },
    };
  }),

  projectTool(
    'get_project_github_activity',
    'GitHub activity',
    'Weekly commit heatmap (52 weeks by 7 days) and the commit count of the last 7 days.',
    (store, p) => {
      const { heatmap, commitsCount7d, repository } = views.operational(store, p).github;
      return {
        text: `${commitsCount7d} commits in the last 7 days; 52-week commit heatmap included.`,
        fields: { heatmap, commitsCount7d, repository },
      };
    },
  ),

  projectTool(
    'get_project_team_track_record',
    'Team track record',
    'Whether the team has relevant education, work experience and business experience.',
    (store, p) => {
      const team = views.operational(store, p).team;
      return {
        text:
          `relevant education: ${yesNo(team.isEducationRelevant)}, relevant work experience: ${yesNo(team.isWorkExperienceRelevant)}, ` +
          `relevant business experience: ${yesNo(team.isBusinessExperienceRelevant)}.`,
        fields: { ...team },
      };
    },
  ),

  projectTool(
    'get_project_certifications',
    'Security certifications',
    'ISO 27001, CCSS (with level) and SOC 2 certifications.',
    (store, p) => {
      const c = views.security(store, p).certifications;
      return {
        text:
          `ISO 27001: ${yesNo(c.isIso27001Present)}, CCSS: ${c.isCcssPresent ? `yes (level ${c.ccssLevel})` : 'no'}, ` +
          `SOC 2: ${yesNo(c.isSoc2Present)}.`,
        fields: { ...c },
      };
    },
  ),

  projectTool(
    'get_project_red_flags',
    'Red flags',
    "Market-maker and investor red flags. 'none_identified' means nothing was found, not a failed fetch.",
    (store, p) => {
      const r = views.reputational(store, p);
      return {
        text: `market-maker red flags: ${describeFindings(r.mmRedFlags)}. Investor red flags: ${describeFindings(r.investorRedFlags)}.`,
        fields: { mmRedFlags: r.mmRedFlags, investorRedFlags: r.investorRedFlags },
      };
    },
  ),

  projectTool(
    'get_project_social_fraud',
    'Social fraud signals',
    'Social-account, website and search-trend metrics (bot shares, engagement, traffic).',
    (store, p) => {
      const social = views.reputational(store, p).social;
      return {
        text: `social metrics: ${Object.entries(social)
          .map(([k, v]) => `${k} ${v}`)
          .join(', ')}.`,
        fields: { social },
      };
    },
  ),

  projectTool(
    'get_project_public_registration',
    'Public registration',
    "Whether a public company registration exists and the jurisdiction quality tier (1 to 4, lower is stricter; may be empty or 'not_returned').",
    (store, p) => {
      const r = views.regulatory(store, p);
      const tier =
        typeof r.jurisdictionQuality === 'number'
          ? `jurisdiction quality tier ${r.jurisdictionQuality} (1 is strictest)`
          : 'jurisdiction quality not returned';
      return {
        text: `public registration present: ${yesNo(r.isPublicRegistrationPresent)}; ${tier}.`,
        fields: {
          isPublicRegistrationPresent: r.isPublicRegistrationPresent,
          jurisdictionQuality: r.jurisdictionQuality,
          jurisdiction: r.jurisdiction,
        },
      };
    },
  ),

  projectTool(
    'get_project_proof_of_voice_pros_and_cons',
    'Proof of Voice pros and cons',
    "Community pros and cons. 'none_identified' means no findings, not a failed fetch.",
    (store, p) => {
      const v = views.proofOfVoice(store, p);
      return {
        text: `pros: ${describeFindings(v.pros)}. Cons: ${describeFindings(v.cons)}.`,
        fields: { pros: v.pros, cons: v.cons },
      };
    },
  ),

  projectTool(
    'get_project_proof_of_voice_expert_reviews',
    'Proof of Voice expert reviews',
    "Expert reviews (author, content, publishedAt). 'none_identified' means no reviews, not a failed fetch.",
    (store, p) => {
      const { reviews } = views.proofOfVoice(store, p);
      const text =
        reviews === 'none_identified'
          ? 'no expert reviews identified.'
          : `${reviews.length} expert review(s): ${reviews.map((r) => `${r.author} (${r.publishedAt.slice(0, 10)}): ${r.content}`).join(' | ')}`;
      return { text, fields: { reviews } };
    },
  ),

  projectTool('get_project_market_data', 'Market data', 'Price, market capitalisation, 24h volume and 24h price change.', (store, p) => {
    const m = views.record(store, p).marketData;
    return {
      text: `price ${usd(m.price)}, market cap ${usd(m.marketCap)}, 24h volume ${usd(m.volume24h)}, 24h change ${m.priceChange24h}%.`,
      fields: { ...m },
    };
  }),
];
