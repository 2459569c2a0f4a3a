/**
 * The panel's data hooks: loading (`useLoad`), a form's submission with the API's problems (`useSubmit`), a
 * table's row actions (`useRowActions`) and whether the signed-in member only reads (`useReadsOnly`). Problems arrive as RFC 9457 documents; forms show each entry next to
 * the field it names and the rest in an error summary.
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { api, ApiError, loadSession, type Member, type Problem } from './api';

/** A problem's entries split into those naming one of `fields` and the rest. */
export function splitProblem(p: Problem | null, fields: readonly string[]): { byField: Record<string, string[]>; general: string[] } {
  const byField: Record<string, string[]> = {};
  const general: string[] = [];
  if (!p) return { byField, general };
  for (const e of p.errors) {
    // "axfr.1" is about the axfr field.
    const head = e.field?.split('.')[0];
    if (head && fields.includes(head)) (byField[head] ??= []).push(e.reason);
    else general.push(e.reason);
  }
  if (general.length === 0 && Object.keys(byField).length === 0) general.push(p.detail);
  return { byField, general };
}

export const problemOf = (e: unknown): Problem =>
  e instanceof ApiError ? e.problem : { status: 0, title: 'Error', detail: e instanceof Error ? e.message : String(e), errors: [] };

/** Loads data when `deps` change; `reload` fetches again. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): { data: T | null; error: Problem | null; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<Problem | null>(null);
  const [tick, setTick] = useState(0);
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const run = useCallback(load, deps);
  useEffect(() => {
    let live = true;
    run().then(
      (d) => live && (setData(d), setError(null)),
      (e) => live && setError(problemOf(e)),
    );
    return () => {
      live = false;
    };
  }, [run, tick]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}

export interface Submission<T> {
  /** True while a submission runs (forms that disable their button while saving read it). */
  busy: boolean;
  /** The last failure's problem, whole (for forms that place entries themselves), or null. */
  problem: Problem | null;
  /** The problem's reasons filed under the form's fields, and the rest for the error summary. */
  byField: Record<string, string[]>;
  general: string[];
  /** Runs `action`; its result goes to `onSuccess` and clears the problem, a failure becomes the problem. */
  run: (action: () => Promise<T>) => Promise<void>;
  /** A form's submit handler running `action` instead of the browser's submission. */
  submitWith: (action: () => Promise<T>) => (e: FormEvent) => void;
  /** Forgets the problem (the input it described has changed). */
  clear: () => void;
}

/**
 * A form's submission: busy state, the API's problem mapped to `fields` (an entry naming "axfr.1" goes to the
 * axfr field) with the rest as general messages, `onSuccess` with the action's result, `onFailure` after a failure.
 */
export function useSubmit<T>(fields: readonly string[], onSuccess: (result: T) => void = () => {}, onFailure: () => void = () => {}): Submission<T> {
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<T>) => {
    setBusy(true);
    try {
      const result = await action();
      setProblem(null);
      onSuccess(result);
    } catch (e) {
      setProblem(problemOf(e));
      onFailure();
    } finally {
      setBusy(false);
    }
  };
  const submitWith = (action: () => Promise<T>) => (e: FormEvent) => {
    e.preventDefault();
    void run(action);
  };
  return { busy, problem, ...splitProblem(problem, fields), run, submitWith, clear: () => setProblem(null) };
}

/**
 * A table's row actions (delete, revoke, activate) and other one-click actions (a download): the table is
 * refreshed after each one; a failure's detail is kept for the page's error summary until the next action
 * succeeds. The row's confirmation, and its busy state while the confirmed action runs, are ConfirmButton's.
 */
export function useRowActions(refresh: () => void = () => {}, { refreshAfterFailure = true } = {}): { run: (action: () => Promise<unknown>) => Promise<void>; errors: string[] } {
  const [error, setError] = useState('');
  const run = async (action: () => Promise<unknown>) => {
    try {
      await action();
      setError('');
    } catch (e) {
      setError(problemOf(e).detail);
      if (!refreshAfterFailure) return;
    }
    refresh();
  };
  return { run, errors: error ? [error] : [] };
}

/**
 * Whether the signed-in member's role is viewer (reads only), from the account's members list, which every
 * member may read: pages then leave out the controls that change things. Until the list is in, false: the
 * server refuses a viewer's change anyway, and the page shows its answer.
 */
export function useReadsOnly(): boolean {
  const username = loadSession()?.username;
  const { data } = useLoad(() => api.get<Member[]>('/v1/members'), [username]);
  return data?.find((m) => m.username === username)?.role === 'viewer';
}
