import type { Runtime, RuntimeSettings } from '../api/types';
import { useRuntimes } from '../api/queries';
import { RuntimeNotReady } from './runtime-not-ready';

/** Runtime, model and parameters from the registry route (spec "Runtime settings"). A new
 *  runtime or model starts from its defaults; the server downgrades what a model lacks. */
export function RuntimePicker({ value, onChange, compact }: { value: RuntimeSettings; onChange: (s: RuntimeSettings) => void; compact?: boolean }) {
  const { data } = useRuntimes();
  const runtimes = data?.runtimes ?? [];
  const runtime = runtimes.find((r) => r.id === value.runtimeId);
  const model = runtime?.models.find((m) => m.id === value.runtimeModel);
  // runtime-c's readiness is its models' (each provider has its own key); the others' is theirs.
  const notReady = runtime?.dynamicModels ? model?.notReadyReason : runtime?.ready === false ? runtime.notReadyReason : undefined;
  const select = 'rounded-md border border-zinc-300 bg-white px-2 py-1 text-xs text-zinc-800 focus:border-accent focus:outline-none';

  const withDefaults = (rt: Runtime, modelId: string): RuntimeSettings => {
    const m = rt.models.find((x) => x.id === modelId);
    const params: Record<string, string> = {};
    for (const [k, spec] of Object.entries(m?.params ?? {})) if (spec.default) params[k] = spec.default;
    return { runtimeId: rt.id, runtimeModel: modelId, runtimeParams: params };
  };

  return (
    <div className={`flex flex-wrap items-center gap-1.5 ${compact ? '' : 'py-1'}`} data-testid="runtime-picker">
      <select
        aria-label="Runtime"
        className={select}
        value={value.runtimeId}
        onChange={(e) => {
          const rt = runtimes.find((r) => r.id === e.target.value);
          if (rt) onChange(withDefaults(rt, rt.defaultModel || rt.models[0]?.id || ''));
        }}
      >
        {runtimes.length === 0 ? <option value={value.runtimeId}>{value.runtimeId}</option> : null}
        {runtimes.map((r) => (
          <option key={r.id} value={r.id} disabled={r.models.length === 0}>
            {r.displayName}
            {r.models.length === 0 ? ' (no models)' : r.ready === false ? ' (needs setup)' : ''}
          </option>
        ))}
      </select>
      <select aria-label="Model" className={select} value={value.runtimeModel} onChange={(e) => runtime && onChange(withDefaults(runtime, e.target.value))}>
        {!model ? <option value={value.runtimeModel}>{value.runtimeModel || 'default model'}</option> : null}
        {runtime?.models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.displayName || m.id}
            {m.notReadyReason ? ' (needs setup)' : ''}
          </option>
        ))}
      </select>
      {Object.entries(model?.params ?? {}).map(([name, spec]) =>
        spec.values.length > 1 ? (
          <label key={name} className="inline-flex items-center gap-1 text-xs text-zinc-500">
            {runtime?.params.find((p) => p.name === name)?.displayName ?? name}
            <select aria-label={name} className={select} value={value.runtimeParams[name] ?? spec.default} onChange={(e) => onChange({ ...value, runtimeParams: { ...value.runtimeParams, [name]: e.target.value } })}>
              {spec.values.map((v) => (
                <option key={v} value={v}>
                  {v}
                </option>
              ))}
            </select>
          </label>
        ) : null,
      )}
      {notReady ? (
        <div className="basis-full text-xs">
          <RuntimeNotReady reason={notReady} testId="runtime-not-ready" />
        </div>
      ) : null}
    </div>
  );
}
