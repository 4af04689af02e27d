import type { CategoryPoint, EntityRef, MetricPoint, PolPoint, ReservesPoint, ValuePoint } from '../../src/api/domain.js';
import type { ChartSpec } from '../../src/charts/index.js';
import type { ReplyImage } from '../../src/reply/model.js';
import type { CommandContext } from './context.js';

export type ChartRequest = { entity: EntityRef; days: number | undefined; simulated: boolean; rangeLabel?: string } & (
  | { kind: 'pol'; points: PolPoint[] }
  | { kind: 'categories'; points: CategoryPoint[] }
  | { kind: 'metrics'; points: MetricPoint[]; metrics: { key: string; label: string }[] }
  | { kind: 'heatmap'; weeks: number[][] }
  | { kind: 'reserves'; points: ReservesPoint[] }
  | { kind: 'inflation'; points: ValuePoint[] }
  | { kind: 'voice'; points: ValuePoint[] }
);

/**
 * Renders a chart for a reply. A chart that fails to draw costs the reply its image, not its
 * answer: the numbers are still worth showing.
 */
export async function chartImage(ctx: CommandContext, req: ChartRequest): Promise<ReplyImage | undefined> {
  const common = {
    entityName: req.entity.name,
    range: req.rangeLabel ?? (req.days === undefined ? 'all' : `${req.days}d`),
    simulated: req.simulated,
    cacheKey: `${req.entity.kind}:${req.entity.slug}`,
  };
  const { entity: _entity, days: _days, simulated: _simulated, rangeLabel: _label, ...data } = req;
  const spec = { ...common, ...data } as ChartSpec;
  try {
    return await ctx.charts.render(spec);
  } catch {
    return undefined;
  }
}
