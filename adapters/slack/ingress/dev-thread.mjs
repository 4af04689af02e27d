// Running from the TypeScript sources, the ingress thread needs the loader the main thread has;
// the compiled build starts thread.js directly.
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
