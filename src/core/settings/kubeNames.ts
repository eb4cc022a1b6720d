/**
 * Kubernetes names as the API server accepts them, checked before any of them reaches kubectl or
 * snapshotctl: a value that starts with "-" would otherwise be read as a flag (issue 13: a
 * `transport.pod` of "--kubeconfig=/tmp/evil" made kubectl load that kubeconfig and run its exec
 * plugin). The patterns are Kubernetes' own (apimachinery validation: DNS-1123 label for namespaces
 * and containers, DNS-1123 subdomain for pods and custom objects). Context names and label
 * selectors are free-form in kubeconfig / the API, so only what could become an option or break a
 * line is refused there. Used by the profile schema (so the message names profile and field) and
 * again by the transport, which never trusts a caller to have validated.
 */

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// C0 controls, DEL and the C1 range: nothing a name or selector needs.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export type KubeNameKind = 'namespace' | 'container' | 'pod' | 'object' | 'context' | 'selector' | 'id';

const WHAT: Record<KubeNameKind, string> = {
  namespace: 'a Kubernetes namespace name (DNS-1123 label: lowercase letters, digits and "-", at most 63, starting and ending with a letter or digit)',
  container: 'a Kubernetes container name (DNS-1123 label: lowercase letters, digits and "-", at most 63, starting and ending with a letter or digit)',
  pod: 'a Kubernetes pod name (DNS-1123 subdomain: lowercase letters, digits, "-" and ".", at most 253, starting and ending with a letter or digit)',
  object: 'a Kubernetes object name (DNS-1123 subdomain: lowercase letters, digits, "-" and ".", at most 253, starting and ending with a letter or digit)',
  context: 'a kubeconfig context name that does not start with "-" and has no spaces or control characters',
  selector: 'a label selector (e.g. "app=llama,tier in (gpu)") that does not start with "-" and has no control characters',
  id: 'an identifier of letters, digits, ".", "_" and "-" that does not start with "-" (at most 253)',
};

/** undefined when `value` is a valid name of this kind, else what was expected (for a message). */
export function kubeNameProblem(kind: KubeNameKind, value: string): string | undefined {
  let ok: boolean;
  switch (kind) {
    case 'namespace':
    case 'container':
      ok = value.length <= 63 && DNS_LABEL.test(value);
      break;
    case 'pod':
    case 'object':
      ok = value.length <= 253 && DNS_SUBDOMAIN.test(value);
      break;
    case 'context':
      ok = value.length > 0 && value.length <= 1024 && !value.startsWith('-') && !/\s/.test(value) && !CONTROL.test(value);
      break;
    case 'selector':
      ok = value.trim().length > 0 && value.length <= 4096 && !value.trimStart().startsWith('-') && !CONTROL.test(value);
      break;
    case 'id':
      ok = value.length <= 253 && /^[A-Za-z0-9_.][A-Za-z0-9_.-]*$/.test(value);
      break;
  }
  return ok ? undefined : `${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)} is not ${WHAT[kind]}`;
}

/** Throws with the problem (the transport's last line of defence; profiles are checked earlier). */
export function assertKubeName(kind: KubeNameKind, value: string, field: string): string {
  const p = kubeNameProblem(kind, value);
  if (p) throw new Error(`${field}: ${p}`);
  return value;
}
