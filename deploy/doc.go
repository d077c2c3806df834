// Package deploy holds the checks of the deployment configuration: the
// docker-compose.yml loaded with the compose-spec loader, the Dockerfiles,
// and end-to-end runs of the built binaries behind the real Caddy with
// deploy/Caddyfile. It has no code of its own; everything is in its tests.
package deploy
