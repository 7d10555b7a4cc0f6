// Package deploy holds no code: it is where toolhost's deployment files
// live — plain Kubernetes manifests (kubernetes/) and a Helm chart
// (helm/toolhost/) — and its tests check them. Both must drain a replica
// without refusing a request: the readiness probe on /readyz, a preStop
// hook, --drain-delay and --drain-timeout inside the pod's grace period,
// and the migrate job before the replicas (docs/deploy.md).
//
// The chart's test renders it with the helm CLI (helm lint, helm
// template) and parses what comes out; it skips without helm, except in
// CI (CI=true), where .ci/run installs it.
package deploy
