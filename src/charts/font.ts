import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { GlobalFonts } from '@napi-rs/canvas';
import { ChartRenderError } from './types.js';

/**
 * The family every chart's text is drawn in. @napi-rs/canvas has no fonts of its own and a slim
 * container has no system fonts, so without these files chart text would silently not draw.
 */
export const CHART_FONT_FAMILY = 'Inter';

export const FONT_FILES = ['Inter_400Regular.ttf', 'Inter_600SemiBold.ttf'].map((f) =>
  fileURLToPath(new URL(`../../assets/fonts/${f}`, import.meta.url)),
);

let registered = false;

/** Registers the shipped font once per process; throws a clear error if the files are missing. */
export function ensureChartFont(): string {
  if (registered) return CHART_FONT_FAMILY;
  for (const file of FONT_FILES) {
    if (!existsSync(file)) {
      throw new ChartRenderError(`chart font missing at ${file}: the deployment must include assets/fonts/`);
    }
    if (!GlobalFonts.registerFromPath(file, CHART_FONT_FAMILY)) {
      throw new ChartRenderError(`chart font at ${file} could not be loaded`);
    }
  }
  registered = true;
  return CHART_FONT_FAMILY;
}
