// Package deploy holds the checks of the deployment configuration: the
// docker-compose.yml loaded with the compose-spec loader, the Dockerfiles,
// the Kubernetes manifests of deploy/k8s decoded strictly and built with
// kustomize, deploy/run.sh run for real, and end-to-end runs of the built
// binaries behind the real Caddy with deploy/Caddyfile. It has no code of its
// own; everything is in its tests.
package deploy
