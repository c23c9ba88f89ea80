// App data: collections of JSON documents the platform stores per app (docs/app-runtime.md,
// "App data"). Writes are optimistic: the writer sees its insert, update (RFC 7396 merge, as
// the server does it) and remove at once; the server's document replaces the guess; a failure
// rolls it back and rejects. Changes from elsewhere arrive as platform:data:change and are
// applied once (a change not newer than the version held is ignored, which drops one's own echo).
// An insert's change can arrive before the insert's own answer; it waits until this writer's
// inserts are answered, so the writer never sees its note twice (the guess and the echo).
//
// A list is the whole collection, read page by page, but never more than the platform's default
// collection cap: a page-side frame must not grow without bound when an operator raises the cap.
// useDoc reads its one document itself, so it finds any document, listed or not.
import { useCallback, useMemo, useSyncExternalStore } from 'react';
import { insidePlatform, listen, request } from './bridge.ts';
import type { DataChange, Doc } from './protocol.ts';

type Data = Record<string, unknown>;
type Patch<T> = Partial<{ [K in keyof T]: T[K] | null }>;

/** The most documents `useCollection` holds: the platform's default collection cap
 *  (PLATFORM_APP_DATA_MAX_DOCUMENTS). With a higher cap, it holds the oldest this many. */
export const maxCollectionDocuments = 10_000;
// The list route's largest page: the fewest round trips through the page.
const pageSize = 200;
const outside = 'This app runs inside the platform: its data is available there.';

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

/** A data request the platform refused: `code` is the route's error code (docs/app-runtime.md). */
export class DataRequestError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
    this.name = 'DataRequestError';
  }
}

function answer<T>(m: Record<string, unknown>): T {
  if (m.ok === false || typeof m.error === 'string') {
    throw new DataRequestError(typeof m.error === 'string' ? m.error : 'The data request failed.', typeof m.code === 'string' ? m.code : 'platform_error');
  }
  return m as T;
}

const notFound = (e: unknown) => e instanceof DataRequestError && e.code === 'data_not_found';

// The list route's order: oldest first, then by id. createdAt never changes, so neither does a
// document's place.
const before = (a: Doc, b: Doc) => a.createdAt < b.createdAt || (a.createdAt === b.createdAt && a.id < b.id);

interface ListSnapshot {
  data: Doc[];
  loading: boolean;
  error: string | null;
  truncated: boolean;
}

interface DocSnapshot {
  data: Doc | null;
  loading: boolean;
  error: string | null;
}

interface Watch {
  count: number;
  // undefined until the platform answered; null: no such document.
  fetched: Doc | null | undefined;
  error: string | null;
  snapshot: DocSnapshot;
}

const noDoc: DocSnapshot = { data: null, loading: false, error: null };
const docLoading: DocSnapshot = { data: null, loading: true, error: null };

class CollectionStore {
  // The documents of the list, in the route's order, and the same by id.
  private listed: Doc[] = [];
  private byId = new Map<string, Doc>();
  // Set by the first useCollection: only then is the whole collection worth reading.
  private listing = false;
  private truncated = false;
  private pending: PendingOp[] = [];
  private listeners = new Set<() => void>();
  private watches = new Map<string, Watch>();
  private snapshot: ListSnapshot = { data: [], loading: true, error: null, truncated: false };
  private temp = 0;
  private deferred: DataChange[] = [];
  private generation = 0;
  // While a list is read: what changes and writes brought since it began is newer than any page
  // of it, and a page read before a removal must not bring the document back.
  private reading: { touched: Set<string>; gone: Set<string> } | null = null;

  constructor(readonly name: string) {}

  subscribe = (l: () => void) => {
    this.listeners.add(l);
    if (!this.listing) {
      this.listing = true;
      void this.readList();
    }
    return () => this.listeners.delete(l);
  };

  getSnapshot = () => this.snapshot;

  watch(docId: string, l: () => void) {
    let w = this.watches.get(docId);
    if (!w) {
      w = { count: 0, fetched: this.byId.get(docId), error: null, snapshot: docLoading };
      this.watches.set(docId, w);
      w.snapshot = this.docSnapshot(docId, w);
      if (w.fetched === undefined) void this.fetchDoc(docId);
    }
    w.count++;
    this.listeners.add(l);
    const watched = w;
    return () => {
      this.listeners.delete(l);
      if (--watched.count === 0) this.watches.delete(docId);
    };
  }

  docSnapshotOf(docId: string): DocSnapshot {
    return this.watches.get(docId)?.snapshot ?? docLoading;
  }

  private newest(docId: string): Doc | null | undefined {
    const listed = this.byId.get(docId);
    const fetched = this.watches.get(docId)?.fetched;
    if (!listed) return fetched;
    return fetched && fetched.version > listed.version ? fetched : listed;
  }

  private docSnapshot(docId: string, w: Watch): DocSnapshot {
    let doc = this.newest(docId) ?? null;
    for (const op of this.pending) {
      if (op.kind === 'update' && op.docId === docId && doc) doc = { ...doc, data: mergePatch(doc.data, op.data) as Data };
      else if (op.kind === 'remove' && op.docId === docId) doc = null;
    }
    const loading = doc === null && w.fetched === undefined && w.error === null;
    const prev = w.snapshot;
    if (prev.data === doc && prev.loading === loading && prev.error === w.error) return prev;
    return { data: doc, loading, error: w.error };
  }

  private commit(patch: Partial<Pick<ListSnapshot, 'loading' | 'error'>> = {}) {
    let data = [...this.listed];
    for (const op of this.pending) {
      if (op.kind === 'insert') data.push({ id: op.tempId, data: op.data, version: 0, createdAt: op.at, updatedAt: op.at });
      else if (op.kind === 'update') data = data.map((d) => (d.id === op.docId ? { ...d, data: mergePatch(d.data, op.data) as Data } : d));
      else data = data.filter((d) => d.id !== op.docId);
    }
    this.snapshot = { ...this.snapshot, ...patch, data, truncated: this.truncated };
    for (const [id, w] of this.watches) w.snapshot = this.docSnapshot(id, w);
    for (const l of [...this.listeners]) l();
  }

  // Where `doc` goes in the list (or is, when held): the first place not before it.
  private placeOf(doc: Doc): number {
    let lo = 0;
    let hi = this.listed.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (before(this.listed[mid]!, doc)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Keeps `doc` in the list when it is newer than the copy held, or belongs among the oldest
   *  maxCollectionDocuments; the newest is let go to make room. */
  private hold(doc: Doc) {
    const known = this.byId.get(doc.id);
    if (known) {
      if (known.version >= doc.version) return;
      this.listed[this.placeOf(known)] = doc;
      this.byId.set(doc.id, doc);
      return;
    }
    const at = this.placeOf(doc);
    if (this.listed.length >= maxCollectionDocuments) {
      this.truncated = true;
      if (at >= this.listed.length) return;
      this.byId.delete(this.listed.pop()!.id);
    }
    this.listed.splice(at, 0, doc);
    this.byId.set(doc.id, doc);
  }

  private keepListed(keep: (d: Doc) => boolean) {
    const kept: Doc[] = [];
    for (const d of this.listed) {
      if (keep(d)) kept.push(d);
      else this.forgetWatched(d.id);
    }
    if (kept.length === this.listed.length) return;
    this.listed = kept;
    this.byId = new Map(kept.map((d) => [d.id, d]));
  }

  private forgetWatched(docId: string) {
    const w = this.watches.get(docId);
    if (w) w.fetched = null;
  }

  /** A document a write or a change brought: newer than any page being read. */
  private learn(doc: Doc) {
    this.reading?.touched.add(doc.id);
    if (this.listing) this.hold(doc);
    const w = this.watches.get(doc.id);
    if (w && (!w.fetched || w.fetched.version < doc.version)) {
      w.fetched = doc;
      w.error = null;
    }
  }

  private forget(docId: string) {
    this.reading?.gone.add(docId);
    const known = this.byId.get(docId);
    if (known) {
      this.listed.splice(this.placeOf(known), 1);
      this.byId.delete(docId);
    }
    const w = this.watches.get(docId);
    if (w) {
      w.fetched = null;
      w.error = null;
    }
  }

  /** Reads the whole collection, page by page, up to maxCollectionDocuments. What was held
   *  stays shown meanwhile; each page also drops what it should hold and does not (removed while
   *  no change reached this frame, as during a reconnect). */
  async readList(): Promise<void> {
    if (!insidePlatform()) {
      this.commit({ loading: false, error: outside });
      return;
    }
    const generation = ++this.generation;
    const reading = { touched: new Set<string>(), gone: new Set<string>() };
    this.reading = reading;
    this.truncated = false;
    let cursor: string | null = null;
    let count = 0;
    let from: Doc | null = null;
    try {
      do {
        const page: { documents: Doc[]; nextCursor: string | null } = answer(
          await request('platform:data:list', { collection: this.name, limit: Math.min(pageSize, maxCollectionDocuments - count), ...(cursor ? { cursor } : {}) }),
        );
        // A newer read (a resync, a refetch) owns the list now.
        if (generation !== this.generation) return;
        const docs = page.documents;
        count += docs.length;
        cursor = page.nextCursor ?? null;
        const last = cursor !== null && count < maxCollectionDocuments ? (docs[docs.length - 1] ?? null) : null;
        const ids = new Set(docs.map((d) => d.id));
        const start = from;
        this.keepListed((d) => (start !== null && !before(start, d)) || (last !== null && before(last, d)) || ids.has(d.id) || reading.touched.has(d.id));
        for (const d of docs) if (!reading.gone.has(d.id)) this.hold(d);
        from = last;
        if (cursor !== null && count < maxCollectionDocuments) this.commit({ error: null });
      } while (cursor !== null && count < maxCollectionDocuments);
      if (cursor !== null) this.truncated = true;
      this.reading = null;
      this.commit({ loading: false, error: null });
    } catch (e) {
      if (generation !== this.generation) return;
      this.reading = null;
      this.commit({ loading: false, error: (e as Error).message });
    }
  }

  private async fetchDoc(docId: string) {
    if (!insidePlatform()) {
      const w = this.watches.get(docId);
      if (w) w.error = outside;
      this.commit();
      return;
    }
    try {
      const { document } = answer<{ document: Doc }>(await request('platform:data:get', { collection: this.name, docId }));
      this.learn(document);
    } catch (e) {
      if (notFound(e)) this.forget(docId);
      else {
        const w = this.watches.get(docId);
        if (w) w.error = (e as Error).message;
      }
    }
    this.commit();
  }

  /** After the page's change stream reconnected: changes may have been missed. */
  resync() {
    if (this.listing) void this.readList();
    for (const id of this.watches.keys()) void this.fetchDoc(id);
  }

  async insert(data: Data): Promise<Doc> {
    const op: PendingOp = { kind: 'insert', tempId: `pending_${++this.temp}`, data, at: Date.now() };
    this.pending.push(op);
    this.commit();
    try {
      const { document } = answer<{ document: Doc }>(await request('platform:data:insert', { collection: this.name, data }));
      this.learn(document);
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
      this.learn(document);
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
      this.forget(docId);
    } finally {
      this.pending = this.pending.filter((p) => p !== op);
      this.commit();
    }
  }

  async apply(change: DataChange) {
    const known = this.newest(change.docId);
    if (known && change.version <= known.version) return;
    if (!known && change.op === 'insert' && this.pending.some((p) => p.kind === 'insert')) {
      this.deferred.push(change);
      return;
    }
    if (change.op === 'remove') {
      this.forget(change.docId);
      this.commit();
      return;
    }
    // Not worth a read when nothing here would show it: not watched, and not listed (no list,
    // or a full one, which it would not enter: a new document is the newest).
    if (!known && !this.watches.has(change.docId) && (!this.listing || this.listed.length >= maxCollectionDocuments)) {
      if (this.listing && !this.truncated) {
        this.truncated = true;
        this.commit();
      }
      return;
    }
    try {
      const { document } = answer<{ document: Doc }>(await request('platform:data:get', { collection: this.name, docId: change.docId }));
      this.learn(document);
    } catch (e) {
      if (notFound(e)) this.forget(change.docId);
      else if (this.listing) return this.readList();
    }
    this.commit();
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
  // After the platform's own change stream reconnected, every list and document is read again.
  if (m.type === 'platform:data:resync') for (const s of stores.values()) s.resync();
});

export interface UseCollection<T extends Data> {
  /** The collection's documents, oldest first, live. While `loading` it holds the pages read so
   *  far; it never holds more than maxCollectionDocuments (see `truncated`). */
  data: Doc<T>[];
  /** @deprecated Use `data` (the same array): the name before the SDK followed the platform spec. */
  docs: Doc<T>[];
  /** True until the whole collection (up to maxCollectionDocuments) has been read once. */
  loading: boolean;
  error: string | null;
  /** The collection holds more than maxCollectionDocuments: `data` has the oldest of them.
   *  useDoc still reads any document; `refetch` reads the oldest ones again. */
  truncated: boolean;
  insert: (data: T) => Promise<Doc<T>>;
  update: (docId: string, data: Patch<T>, expectedVersion?: number) => Promise<Doc<T>>;
  remove: (docId: string) => Promise<void>;
  refetch: () => Promise<void>;
}

/** The documents of `collection`, all of them (up to maxCollectionDocuments), live, with
 *  optimistic writes. */
export function useCollection<T extends Data = Data>(collection: string): UseCollection<T> {
  const store = storeOf(collection);
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot) as unknown as ListSnapshot & { data: Doc<T>[] };
  return useMemo(
    () => ({
      data: snap.data,
      docs: snap.data,
      loading: snap.loading,
      error: snap.error,
      truncated: snap.truncated,
      insert: (data: T) => store.insert(data) as Promise<Doc<T>>,
      update: (docId: string, data: Patch<T>, expectedVersion?: number) => store.update(docId, data as Data, expectedVersion) as Promise<Doc<T>>,
      remove: (docId: string) => store.remove(docId),
      refetch: () => store.readList(),
    }),
    [snap, store],
  );
}

export interface UseDoc<T extends Data> {
  /** The document, live; null while loading, without a docId, or when there is no such document. */
  data: Doc<T> | null;
  /** @deprecated Use `data` (the same document): the name before the SDK followed the platform spec. */
  doc: Doc<T> | null;
  loading: boolean;
  error: string | null;
  update: (data: Patch<T>, expectedVersion?: number) => Promise<Doc<T>>;
  remove: () => Promise<void>;
}

/** One document of `collection`, live, with optimistic writes: read by its id, so it need not be
 *  among the ones a list holds. */
export function useDoc<T extends Data = Data>(collection: string, docId: string | null): UseDoc<T> {
  const store = storeOf(collection);
  const subscribe = useCallback((l: () => void) => (docId ? store.watch(docId, l) : () => {}), [store, docId]);
  const getSnapshot = useCallback(() => (docId ? store.docSnapshotOf(docId) : noDoc), [store, docId]);
  const snap = useSyncExternalStore(subscribe, getSnapshot) as DocSnapshot & { data: Doc<T> | null };
  const update = useCallback(
    (data: Patch<T>, expectedVersion?: number) =>
      docId ? (store.update(docId, data as Data, expectedVersion) as Promise<Doc<T>>) : Promise.reject(new Error('no document')),
    [store, docId],
  );
  const remove = useCallback(() => (docId ? store.remove(docId) : Promise.resolve()), [store, docId]);
  return useMemo(() => ({ data: snap.data, doc: snap.data, loading: snap.loading, error: snap.error, update, remove }), [snap, update, remove]);
}
