/** Small shared pieces: labelled fields with their errors, error summaries, confirmations, dates and lists. */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

interface FieldProps {
  label: string;
  hint?: string;
  errors?: string[] | undefined;
  required?: boolean;
  children: (props: { id: string; 'aria-describedby'?: string; 'aria-invalid'?: boolean; 'aria-required'?: boolean }) => ReactNode;
}

/** Where a viewer (reads only) would find the controls that change `what`: says why there are none. */
export function ReadsOnlyNotice({ what }: { what: string }) {
  return (
    <p className="notice" role="status">
      Your role is viewer: you can read {what}, not change them.
    </p>
  );
}

/** A label, the control, a hint and the API's reasons for this field, tied together for screen readers. */
export function Field({ label, hint, errors, required, children }: FieldProps) {
  const id = useId();
  const described = [hint ? `${id}-hint` : '', errors?.length ? `${id}-err` : ''].filter(Boolean).join(' ');
  return (
    <div className={`field${errors?.length ? ' invalid' : ''}`}>
      <label htmlFor={id}>
        {label}
        {required ? <span className="req"> (required)</span> : null}
      </label>
      {children({ id, ...(described ? { 'aria-describedby': described } : {}), ...(errors?.length ? { 'aria-invalid': true } : {}), ...(required ? { 'aria-required': true } : {}) })}
      {hint ? (
        <p className="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {errors?.length ? (
        <p className="field-error" id={`${id}-err`}>
          {errors.join(' ')}
        </p>
      ) : null}
    </div>
  );
}

/** Problems that name no field of the form (or a failure with no details), announced when they appear. */
export function ErrorSummary({ messages }: { messages: string[] }) {
  if (messages.length === 0) return null;
  return (
    <div className="error-summary" role="alert">
      {messages.length === 1 ? <p>{messages[0]}</p> : <ul>{messages.map((m, i) => <li key={i}>{m}</li>)}</ul>}
    </div>
  );
}

/** A button that asks again before acting; focus moves to the safe choice. */
export function ConfirmButton({ label, ariaLabel, question, confirmLabel, onConfirm }: {
  label: string;
  /** The button's name for screen readers when `label` alone ("Delete") does not say what it acts on. */
  ariaLabel?: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);
  if (!asking)
    return (
      <button type="button" className="danger" ref={opener} aria-label={ariaLabel} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <span className="confirm" role="group" aria-label={question}>
      <span className="confirm-question">{question}</span>
      <button
        type="button"
        className="danger"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" ref={cancel} onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** "2026-11-23T01:02:03.000Z" as the reader's local date and time. */
export const when = (iso: string | null, never = '—'): string => (iso ? new Date(iso).toLocaleString() : never);

/** "a, b c" → ["a", "b", "c"]: address lists are typed as text. */
export const listOf = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

/** A table's column headers; `actions` adds the (unnamed on screen) column of the rows' buttons. */
export function ColumnHeads({ labels, actions = false }: { labels: string[]; actions?: boolean }) {
  return (
    <thead>
      <tr>
        {labels.map((label) => (
          <th scope="col" key={label}>
            {label}
          </th>
        ))}
        {actions ? (
          <th scope="col">
            <span className="sr-only">Actions</span>
          </th>
        ) : null}
      </tr>
    </thead>
  );
}

/** Under a secret shown once: copy it, or hide it for good. */
export function CopyOrHide({ text, copyLabel, onDone }: { text: string; copyLabel: string; onDone: () => void }) {
  return (
    <div className="actions">
      <button type="button" onClick={() => navigator.clipboard?.writeText(text)}>
        {copyLabel}
      </button>
      <button type="button" onClick={onDone}>
        Done, hide it
      </button>
    </div>
  );
}
