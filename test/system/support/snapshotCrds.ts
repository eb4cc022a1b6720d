/**
 * Structural CRDs for the real kube-apiserver the system tests start (kubeCluster.ts), written here
 * because the Go module proxy refuses ai-dynamo's modules (403 for github.com/ai-dynamo/snapshot/api
 * and github.com/ai-dynamo/dynamo/deploy/operator, checked 2026-12-01), so the upstream YAML cannot be
 * fetched at test time. Each schema reproduces, field by field, the constraints the upstream Go types
 * declare (types, required fields, patterns, lengths, enums, immutability rules), so the API server
 * rejects an object upstream's would reject:
 *
 * - PodSnapshot, PodSnapshotContent, SnapshotJob: ai-dynamo/snapshot api/v1alpha1 podsnapshot_types.go
 *   (3ea7c8b), podsnapshotcontent_types.go + checkpoint_source_types.go (the status.source block,
 *   api/v1alpha1/crds/nvidia.com_podsnapshotcontents.yaml 04a4f9e), storage_types.go (a62ad49),
 *   snapshotjob_types.go (9d066df); docs/reference/api.md (084d620).
 * - DynamoCheckpoint: ai-dynamo/dynamo deploy/operator/api/v1alpha1 dynamocheckpoint_types.go (before
 *   its removal in dynamo#14076).
 *
 * `podTemplate` keeps unknown fields (upstream embeds the full PodTemplateSpec schema, which the API
 * server validates as a pod elsewhere); everything the workbench reads is typed.
 */

type Schema = Record<string, unknown>;

const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra });
const obj = (properties: Record<string, Schema>, required: string[] = [], extra: Schema = {}): Schema => ({ type: 'object', properties, ...(required.length ? { required } : {}), ...extra });
const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';

/** metav1.Condition as controller-gen renders it. */
const condition = obj(
  {
    type: str({ maxLength: 316, pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' }),
    status: str({ enum: ['True', 'False', 'Unknown'] }),
    reason: str({ maxLength: 1024, minLength: 1, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
    message: str({ maxLength: 32768 }),
    lastTransitionTime: str({ format: 'date-time' }),
    observedGeneration: { type: 'integer', format: 'int64', minimum: 0 },
  },
  ['lastTransitionTime', 'message', 'reason', 'status', 'type'],
);
const conditions = (mapByType = false): Schema => ({ type: 'array', items: condition, ...(mapByType ? { 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['type'] } : {}) });

const podReference = obj(
  {
    name: str({ minLength: 1 }),
    uid: str(),
    containers: { type: 'array', minItems: 1, maxItems: 1, items: str({ minLength: 1, maxLength: 63, pattern: DNS_LABEL }) },
  },
  ['containers', 'name'],
);

const immutable = { 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec is immutable' }] };

function crd(plural: string, kind: string, scope: 'Namespaced' | 'Cluster', shortNames: string[], schema: Schema, extra: Schema = {}): Schema {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.nvidia.com` },
    spec: {
      group: 'nvidia.com',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames },
      scope,
      versions: [{ name: 'v1alpha1', served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: 'object', properties: { apiVersion: str(), kind: str(), metadata: { type: 'object' }, ...schema }, ...extra } } }],
    },
  };
}

export const POD_SNAPSHOT_CRD = crd('podsnapshots', 'PodSnapshot', 'Namespaced', ['podsnap'], {
  spec: obj({ source: obj({ podRef: podReference }, ['podRef']) }, ['source'], immutable),
  status: obj({ boundSnapshotContentName: str(), conditions: conditions() }),
}, { required: ['spec'] });

export const POD_SNAPSHOT_CONTENT_CRD = crd('podsnapshotcontents', 'PodSnapshotContent', 'Cluster', ['podsnapcontent'], {
  spec: obj(
    {
      snapshotRef: obj({ namespace: str(), name: str(), uid: str() }, ['name', 'namespace']),
      source: obj({ podRef: podReference, nodeName: str({ minLength: 1 }) }, ['nodeName', 'podRef']),
      storage: obj({ storeID: str({ maxLength: 73, pattern: '^store-v1-[0-9a-f]{64}$' }) }, ['storeID']),
    },
    ['snapshotRef', 'source'],
    immutable,
  ),
  status: obj({
    conditions: conditions(),
    source: obj({
      node: obj({ name: str(), architecture: str(), kernelVersion: str() }),
      pod: obj({ image: str(), imageDigest: str(), memory: str(), cpu: str() }),
      devices: obj({ nvidia: obj({ driverVersion: str(), instances: { type: 'array', items: obj({ productName: str(), migProfile: str() }) } }) }),
    }),
    storage: obj(
      {
        artifacts: {
          type: 'array',
          minItems: 1,
          maxItems: 128,
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['containerName'],
          items: obj(
            {
              containerName: str({ minLength: 1, maxLength: 63, pattern: DNS_LABEL }),
              artifactHandle: str({ minLength: 1, maxLength: 4096, pattern: '\\S' }),
              artifactFormatVersion: str({ minLength: 1, maxLength: 128, pattern: '\\S' }),
            },
            ['artifactFormatVersion', 'artifactHandle', 'containerName'],
          ),
        },
      },
      ['artifacts'],
    ),
  }),
}, { required: ['spec'] });

export const SNAPSHOT_JOB_CRD = crd('snapshotjobs', 'SnapshotJob', 'Namespaced', ['snapjob'], {
  spec: obj(
    {
      podTemplate: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      activeDeadlineSeconds: { type: 'integer', format: 'int64', minimum: 1, default: 3600 },
      podSnapshotTemplate: obj({ targetContainers: { type: 'array', default: ['main'], minItems: 1, maxItems: 1, items: str({ minLength: 1, maxLength: 63, pattern: DNS_LABEL }) } }),
    },
    ['podSnapshotTemplate', 'podTemplate'],
    immutable,
  ),
  status: obj({
    sourceJobUID: str(),
    podSnapshotName: str(),
    podSnapshotUID: str(),
    startedAt: str({ format: 'date-time' }),
    completedAt: str({ format: 'date-time' }),
    conditions: conditions(true),
  }),
}, { required: ['spec'], 'x-kubernetes-validations': [{ rule: 'size(self.metadata.name) <= 63', message: 'metadata.name must be no more than 63 characters because SnapshotJob uses it as a label value' }] });

export const DYNAMO_CHECKPOINT_CRD = crd('dynamocheckpoints', 'DynamoCheckpoint', 'Namespaced', ['dckpt'], {
  spec: obj(
    {
      identity: obj({ model: str({ minLength: 1 }), backendFramework: str({ enum: ['vllm', 'sglang', 'trtllm'] }), dynamoVersion: str(), tensorParallelSize: { type: 'integer' }, pipelineParallelSize: { type: 'integer' }, dtype: str(), maxModelLen: { type: 'integer' } }, ['backendFramework', 'model']),
      job: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
    },
    ['identity', 'job'],
  ),
  status: obj({
    phase: str({ enum: ['Pending', 'Creating', 'Ready', 'Failed'] }),
    identityHash: str(),
    jobName: str(),
    location: str(),
    storageType: str({ enum: ['pvc', 's3', 'oci'] }),
    createdAt: str({ format: 'date-time' }),
    message: str(),
    conditions: conditions(),
  }),
});

export const SNAPSHOT_API_CRDS = [POD_SNAPSHOT_CRD, POD_SNAPSHOT_CONTENT_CRD, SNAPSHOT_JOB_CRD];
