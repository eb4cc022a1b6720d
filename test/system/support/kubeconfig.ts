/** One-cluster kubeconfig files for the tests (the fake and the real API server, and the attack's). */

export interface KubeconfigUser {
  token?: string;
  /** an exec credential plugin (client.authentication.k8s.io/v1) */
  exec?: string;
}

export function kubeconfigText(o: { name: string; server: string; caData?: string; user?: KubeconfigUser }): string {
  const user = o.user?.token ? `\n    token: ${o.user.token}` : o.user?.exec ? `\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: ${o.user.exec}\n      interactiveMode: Never` : ' {}';
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${o.name}\n  cluster:\n    server: ${o.server}${o.caData ? `\n    certificate-authority-data: ${o.caData}` : ''}`,
    'users:',
    `- name: ${o.name}\n  user:${user}`,
    'contexts:',
    `- name: ${o.name}\n  context:\n    cluster: ${o.name}\n    user: ${o.name}\n    namespace: default`,
    `current-context: ${o.name}`,
    '',
  ].join('\n');
}
