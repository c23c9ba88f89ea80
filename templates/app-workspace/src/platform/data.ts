// App data: collections of JSON documents the platform stores per app (docs/app-runtime.md,
// "App data"). Writes are optimistic: the writer sees its insert, update (RFC 7396 merge, as
// the server does it) and remove at once; the server's document replaces the guess; a failure
// rolls it back and rejects. Changes from elsewhere arrive as platform:data:change and are
// applied once (a change not newer than the version held is ignored, which drops one's own echo).
// An insert's change can arrive before the insert's own answer; it waits until this writer's
// inserts are answered, so the writer never sees its note twice (the guess and the echo).
import { useCallback, useMemo, useSyncExternalStore } from 'react';
import { insidePlatform, listen, request } from './bridge.ts';
import type { DataChange, Doc } from './protocol.ts';

type Data = Record<string, unknown>;

type PendingOp =
  | { kind: 'insert'; tempId: string; data: Data; at: number }
  | { kind: 'update'; docId: string; data: Data }
  | { kind: 'remove'; docId: string };

/** RFC 7396: objects merge member by member, null removes, anything else replaces. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!patch || typeof patch !== 'object' || Array.isArray(patch)) return patch;
  const out: Data = target && typeof target === 'object' && !Array.isArray(target) ? { ...(target as Data) } : {};
  for (const [k, v] of Object.entries(patch as Data)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function answer<T>(m: Record<string, unknown>): T {
  if (m.ok === false || typeof m.error === 'string') throw new Error(typeof m.error === 'string' ? m.error : 'The data request failed.');
  return m as T;
}

interface Snapshot<T extends Data> {
  docs: Doc<T>[];
  loading: boolean;
  error: string | null;
}

class CollectionStore {
  private server: Doc[] = [];
  private pending: PendingOp[] = [];
  private listeners = new Set<() => void>();
  private snapshot: Snapshot<Data> = { docs: [], loading: true, error: null };
  private loaded = false;
  private temp = 0;
  private deferred: DataChange[] = [];

  constructor(readonly name: string) {}

  subscribe = (l: () => void) => {
    this.listeners.add(l);
    if (!this.loaded) {
      this.loaded = true;
      void this.reload();
    }
    return () => this.listeners.delete(l);
  };

  getSnapshot = () => this.snapshot;

  private commit(patch: Partial<Snapshot<Data>> = {}) {
    let docs = [...this.server];
    for (const op of this.pending) {
      if (op.kind === 'insert') docs.push({ id: op.tempId, data: op.data, version: 0, createdAt: op.at, updatedAt: op.at });
      else if (op.kind === 'update') docs = docs.map((d) => (d.id === op.docId ? { ...d, data: mergePatch(d.data, op.data) as Data } : d));
      else docs = docs.filter((d) => d.id !== op.docId);
    }
    this.snapshot = { ...this.snapshot, ...patch, docs };
    for (const l of [...this.listeners]) l();
  }

  async reload() {
    if (!insidePlatform()) {
      this.commit({ loading: false, error: 'This app runs inside the platform: its data is available there.' });
      return;
    }
    try {
      const m = answer<{ documents: Doc[] }>(await request('platform:data:list', { collection: this.name, limit: 200 }));
      this.server = m.documents;
      this.commit({ loading: false, error: null });
    } catch (e) {
      this.commit({ loading: false, error: (e as Error).message });
    }
  }

  private putServer(doc: Doc) {
    const at = this.server.findIndex((d) => d.id === doc.id);
    if (at < 0) this.server = [...this.server, doc];
    else if (this.server[at]!.version < doc.version) this.server = this.server.map((d, i) => (i === at ? doc : d));
  }

  async insert(data: Data): Promise<Doc> {
    const op: PendingOp = { kind: 'insert', tempId: `pending_${++this.temp}`, data, at: Date.now() };
    this.pending.push(op);
    this.commit();
    try {
      const { document } = answer<{ document: Doc }>(await request('platform:data:insert', { collection: this.name, data }));
      this.putServer(document);
      return document;
    } finally {
      this.pending = this.pending.filter((p) => p !== op);
      this.commit();
      if (!this.pending.some((p) => p.kind === 'insert')) for (const c of this.deferred.splice(0)) void this.apply(c);
    }
  }

  async update(docId: string, data: Data, expectedVersion?: number): Promise<Doc> {
    const op: PendingOp = { kind: 'update', docId, data };
    this.pending.push(op);
    this.commit();
    try {
      const { document } = answer<{ document: Doc }>(
        await request('platform:data:update', { collection: this.name, docId, data, ...(expectedVersion !== undefined ? { expectedVersion } : {}) }),
      );
      this.putServer(document);
      return document;
    } finally {
      this.pending = this.pending.filter((p) => p !== op);
      this.commit();
    }
  }

  async remove(docId: string): Promise<void> {
    const op: PendingOp = { kind: 'remove', docId };
    this.pending.push(op);
    this.commit();
    try {
      answer(await request('platform:data:remove', { collection: this.name, docId }));
      this.server = this.server.filter((d) => d.id !== docId);
    } finally {
      this.pending = this.pending.filter((p) => p !== op);
      this.commit();
    }
  }

  async apply(change: DataChange) {
    const known = this.server.find((d) => d.id === change.docId);
    if (known && change.version <= known.version) return;
    if (!known && change.op === 'insert' && this.pending.some((p) => p.kind === 'insert')) {
      this.deferred.push(change);
      return;
    }
    if (change.op === 'remove') {
      this.server = this.server.filter((d) => d.id !== change.docId);
      this.commit();
      return;
    }
    try {
      const { document } = answer<{ document: Doc }>(await request('platform:data:get', { collection: this.name, docId: change.docId }));
      this.putServer(document);
      this.commit();
    } catch {
      await this.reload();
    }
  }
}

const stores = new Map<string, CollectionStore>();
function storeOf(collection: string): CollectionStore {
  let s = stores.get(collection);
  if (!s) {
    s = new CollectionStore(collection);
    stores.set(collection, s);
  }
  return s;
}

listen((m) => {
  if (m.type === 'platform:data:change') void stores.get(String(m.collection))?.apply(m as unknown as DataChange);
  // After the platform's own change stream reconnected, every list is read again.
  if (m.type === 'platform:data:resync') for (const s of stores.values()) void s.reload();
});

export interface UseCollection<T extends Data> {
  docs: Doc<T>[];
  loading: boolean;
  error: string | null;
  insert: (data: T) => Promise<Doc<T>>;
  update: (docId: string, data: Partial<{ [K in keyof T]: T[K] | null }>, expectedVersion?: number) => Promise<Doc<T>>;
  remove: (docId: string) => Promise<void>;
  refetch: () => Promise<void>;
}

/** The documents of `collection`, live, with optimistic writes. */
export function useCollection<T extends Data = Data>(collection: string): UseCollection<T> {
  const store = storeOf(collection);
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot) as Snapshot<T>;
  return useMemo(
    () => ({
      ...snap,
      insert: (data: T) => store.insert(data) as Promise<Doc<T>>,
      update: (docId: string, data: Partial<{ [K in keyof T]: T[K] | null }>, expectedVersion?: number) =>
        store.update(docId, data as Data, expectedVersion) as Promise<Doc<T>>,
      remove: (docId: string) => store.remove(docId),
      refetch: () => store.reload(),
    }),
    [snap, store],
  );
}

/** One document of `collection`, live. */
export function useDoc<T extends Data = Data>(collection: string, docId: string | null) {
  const c = useCollection<T>(collection);
  const doc = docId ? (c.docs.find((d) => d.id === docId) ?? null) : null;
  const update = useCallback((data: Partial<{ [K in keyof T]: T[K] | null }>) => (docId ? c.update(docId, data) : Promise.reject(new Error('no document'))), [c, docId]);
  const remove = useCallback(() => (docId ? c.remove(docId) : Promise.resolve()), [c, docId]);
  return { doc, loading: c.loading, error: c.error, update, remove };
}
