/**
 * Custom workflow steps as Slack runs them: a workflow reaches a step, Slack sends
 * `function_executed` with the step's inputs, an execution id and a token made for that execution
 * (`bot_access_token`, which the app's calls for it use), and waits for `functions.completeSuccess`
 * with the outputs the step declared, or `functions.completeError` with a message. Slack refuses an
 * output the manifest's step did not declare, a declared required one left out, a second completion
 * of one execution, and an unknown execution id.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { DEFAULT_IDENTITY } from './identity.js';

interface Declared {
  outputs: Set<string>;
  required: Set<string>;
  types: Record<string, string>;
}

/** The steps the product's manifest declares, by callback id: what Slack would check against. */
function declaredSteps(): Map<string, Declared> {
  const manifest = parse(readFileSync(new URL('../../../adapters/slack/manifest.yml', import.meta.url), 'utf8')) as {
    functions?: Record<string, { output_parameters?: { properties?: Record<string, { type: string }>; required?: string[] } }>;
  };
  return new Map(
    Object.entries(manifest.functions ?? {}).map(([id, f]) => {
      const props = f.output_parameters?.properties ?? {};
      return [
        id,
        {
          outputs: new Set(Object.keys(props)),
          required: new Set(f.output_parameters?.required ?? []),
          types: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, v.type])),
        },
      ];
    }),
  );
}

interface Execution {
  callbackId: string;
  token: string;
  outcome?: { ok: true; outputs: Record<string, unknown> } | { ok: false; error: string };
}

export class FakeFunctions {
  private readonly steps = declaredSteps();
  private readonly executions = new Map<string, Execution>();

  /** Whether a token is one Slack made for a running execution. */
  ownsToken(token: string): boolean {
    return [...this.executions.values()].some((e) => e.token === token);
  }

  /** A workflow reached the step: the `function_executed` body to post to the app, and the execution's id. */
  execute(callbackId: string, inputs: Record<string, unknown>): { body: string; executionId: string } {
    const executionId = `Fx${randomBytes(5).toString('hex').toUpperCase()}`;
    const token = `xwfp-${randomBytes(12).toString('hex')}`;
    this.executions.set(executionId, { callbackId, token });
    const now = Math.floor(Date.now() / 1000);
    const body = JSON.stringify({
      token: 'fakeVerificationToken0000',
      team_id: DEFAULT_IDENTITY.teamId,
      api_app_id: DEFAULT_IDENTITY.appId,
      event: {
        type: 'function_executed',
        function: {
          id: `Fn${randomBytes(4).toString('hex').toUpperCase()}`,
          callback_id: callbackId,
          title: callbackId,
          type: 'app',
          app_id: DEFAULT_IDENTITY.appId,
        },
        inputs,
        function_execution_id: executionId,
        workflow_execution_id: `Wx${randomBytes(5).toString('hex').toUpperCase()}`,
        event_ts: `${now}.000100`,
        bot_access_token: token,
      },
      type: 'event_callback',
      event_id: `Ev${randomBytes(5).toString('hex').toUpperCase()}`,
      event_time: now,
      authorizations: [
        {
          enterprise_id: null,
          team_id: DEFAULT_IDENTITY.teamId,
          user_id: DEFAULT_IDENTITY.botUserId,
          is_bot: true,
          is_enterprise_install: false,
        },
      ],
    });
    return { body, executionId };
  }

  /** How the execution ended, once the app completed it. */
  outcome(executionId: string): Execution['outcome'] {
    return this.executions.get(executionId)?.outcome;
  }

  complete(
    method: 'functions.completeSuccess' | 'functions.completeError',
    args: Record<string, unknown>,
  ): { ok: boolean; error?: string } {
    const id = typeof args.function_execution_id === 'string' ? args.function_execution_id : '';
    const execution = this.executions.get(id);
    if (!execution) return { ok: false, error: 'function_execution_not_found' };
    if (execution.outcome) return { ok: false, error: 'function_execution_already_completed' };
    if (method === 'functions.completeError') {
      if (typeof args.error !== 'string' || !args.error) return { ok: false, error: 'invalid_arguments' };
      execution.outcome = { ok: false, error: args.error };
      return { ok: true };
    }
    const raw = typeof args.outputs === 'string' ? (JSON.parse(args.outputs) as unknown) : args.outputs;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return { ok: false, error: 'invalid_arguments' };
    const outputs = raw as Record<string, unknown>;
    const declared = this.steps.get(execution.callbackId);
    if (!declared) return { ok: false, error: 'function_not_found' };
    for (const key of Object.keys(outputs)) if (!declared.outputs.has(key)) return { ok: false, error: 'invalid_output_parameters' };
    for (const key of declared.required) if (!(key in outputs)) return { ok: false, error: 'invalid_output_parameters' };
    for (const [key, value] of Object.entries(outputs))
      if (declared.types[key] === 'number' ? typeof value !== 'number' : typeof value !== 'string')
        return { ok: false, error: 'invalid_output_parameters' };
    execution.outcome = { ok: true, outputs };
    return { ok: true };
  }
}
