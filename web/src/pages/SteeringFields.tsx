/**
 * A record form's steering fields (docs/interface-b.md "Steering"): the health check the record follows, its
 * weight and its subnets, sent as the record's `steering` object (null when all are empty).
 */
import type { HealthCheck, Steering } from '../api';
import { Field, listOf } from '../ui';

/** The steering fields as typed. */
export interface SteeringInput {
  healthcheck: string;
  weight: string;
  subnets: string;
}

export const steeringInput = (s: Steering | undefined): SteeringInput => ({
  healthcheck: s?.healthcheck === undefined ? '' : String(s.healthcheck),
  weight: s?.weight === undefined ? '' : String(s.weight),
  subnets: s?.subnets?.join('\n') ?? '',
});

/** The `steering` value of the fields: null when all are empty; a weight that is not a number as typed, for the server to explain. */
export function steeringOf(input: SteeringInput): Steering | null {
  const weight = input.weight.trim();
  const subnets = listOf(input.subnets);
  const out = {
    ...(input.healthcheck ? { healthcheck: Number(input.healthcheck) } : {}),
    ...(weight === '' ? {} : { weight: /^\d+$/.test(weight) ? Number(weight) : (weight as unknown as number) }),
    ...(subnets.length ? { subnets } : {}),
  };
  return Object.keys(out).length ? out : null;
}

const checkLabel = (c: HealthCheck) => `#${c.id} ${c.type} ${c.address}:${c.port} (${c.status})`;

export function SteeringFields({ input, checks, errors, onChange }: { input: SteeringInput; checks: HealthCheck[]; errors: string[] | undefined; onChange: (input: SteeringInput) => void }) {
  const set = (name: keyof SteeringInput, value: string) => onChange({ ...input, [name]: value });
  return (
    <fieldset className="steering">
      <legend>Steering (optional)</legend>
      <Field label="Health check" errors={errors} hint="While the check is down the record is left out of answers, unless every candidate is down. Health checks are made on their own page.">
        {(p) => (
          <select {...p} name="steering-healthcheck" value={input.healthcheck} onChange={(e) => set('healthcheck', e.target.value)}>
            <option value="">none</option>
            {checks.map((c) => (
              <option key={c.id} value={String(c.id)}>
                {checkLabel(c)}
              </option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Weight" hint="0–255: among the records left, one is served at random in proportion to its weight.">
        {(p) => <input {...p} name="steering-weight" inputMode="numeric" autoComplete="off" value={input.weight} onChange={(e) => set('weight', e.target.value)} />}
      </Field>
      <Field label="Subnets" hint="CIDR networks, one a line, e.g. 192.0.2.0/24: the record is served only to clients inside one of them (EDNS Client Subnet, else the source address).">
        {(p) => <textarea {...p} name="steering-subnets" rows={2} spellCheck={false} value={input.subnets} onChange={(e) => set('subnets', e.target.value)} />}
      </Field>
    </fieldset>
  );
}
