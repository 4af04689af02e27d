#!/usr/bin/env node
// TypeScript sources run through tsx's loader, so a fresh clone works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../app/cli/main.ts');
