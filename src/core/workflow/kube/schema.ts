/**
 * zod pieces shared by the Kubernetes parsers. The API server writes an unset time or pointer field
 * as `null` (a pod condition's `lastTransitionTime`, `lastProbeTime`), so every optional scalar here
 * accepts null and reads it as absent; a field of the wrong type in a custom object is dropped
 * (`loose`) rather than failing the whole observation.
 */
import { z } from 'zod';

/** An optional string that may also be `null` on the wire. */
export const optText = z.string().nullish().transform((v) => v ?? undefined);

/** An optional integer that may also be `null`. */
export const optInt = z.number().int().nullish().transform((v) => v ?? undefined);

/** metav1.Condition / a pod condition: only what the judges read. */
export const Condition = z.looseObject({
  type: z.string(),
  status: optText,
  reason: optText,
  message: optText,
  lastTransitionTime: optText,
});
export type ConditionIn = z.output<typeof Condition>;

/** An optional sub-object that is dropped (undefined) when it has the wrong shape. */
export const loose = <T extends z.ZodType>(t: T) => t.optional().catch(undefined);

/** RFC 3339 → ms since the epoch (undefined when absent or unparsable). */
export function time(s?: string | null): number | undefined {
  const t = s ? Date.parse(s) : NaN;
  return Number.isFinite(t) ? t : undefined;
}
