package deploy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/compose-spec/compose-go/v2/types"
)

// k8sKinds are the kinds deploy/k8s may hold, with the API version each must
// name and the type it decodes into.
var k8sKinds = map[string]struct {
	apiVersion string
	decodeInto func() any
}{
	"Deployment":              {"apps/v1", func() any { return &appsv1.Deployment{} }},
	"Service":                 {"v1", func() any { return &corev1.Service{} }},
	"ConfigMap":               {"v1", func() any { return &corev1.ConfigMap{} }},
	"Secret":                  {"v1", func() any { return &corev1.Secret{} }},
	"HorizontalPodAutoscaler": {"autoscaling/v2", func() any { return &autoscalingv2.HorizontalPodAutoscaler{} }},
	"PodDisruptionBudget":     {"policy/v1", func() any { return &policyv1.PodDisruptionBudget{} }},
	"NetworkPolicy":           {"networking.k8s.io/v1", func() any { return &networkingv1.NetworkPolicy{} }},
	"PersistentVolumeClaim":   {"v1", func() any { return &corev1.PersistentVolumeClaim{} }},
}

// kustomization is the part of kustomization.yaml the manifests use; strict
// decoding refuses any other field, so nothing in it goes unchecked.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Images     []struct {
		Name    string `json:"name"`
		NewName string `json:"newName,omitempty"`
		NewTag  string `json:"newTag,omitempty"`
	} `json:"images"`
	ConfigMapGenerator []struct {
		Name     string   `json:"name"`
		Literals []string `json:"literals,omitempty"`
		Files    []string `json:"files,omitempty"`
	} `json:"configMapGenerator"`
}

// k8sObjects is every object of the resource files, decoded.
type k8sObjects struct {
	deployments map[string]*appsv1.Deployment
	services    map[string]*corev1.Service
	hpas        []*autoscalingv2.HorizontalPodAutoscaler
	pdbs        []*policyv1.PodDisruptionBudget
	policies    []*networkingv1.NetworkPolicy
	claims      map[string]*corev1.PersistentVolumeClaim
	kust        kustomization
}

func k8sDir(t *testing.T) string { return filepath.Join(repoRoot(t), "deploy", "k8s") }

// decodeStrict decodes one YAML document into v, refusing duplicate keys and
// any field v's type does not have.
func decodeStrict(doc []byte, v any) error {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data")
	}
	return nil
}

var docSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)

// decodeObjects decodes every document of a multi-document YAML stream into
// its kind's type, checking the API version; where names the stream in
// errors.
func decodeObjects(t *testing.T, where string, stream []byte) []any {
	t.Helper()
	var out []any
	for i, doc := range docSeparator.Split(string(stream), -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &tm); err != nil {
			t.Fatalf("%s, document %d: %v", where, i+1, err)
		}
		k, ok := k8sKinds[tm.Kind]
		if !ok {
			t.Errorf("%s, document %d: kind %q is not one the test knows", where, i+1, tm.Kind)
			continue
		}
		if tm.APIVersion != k.apiVersion {
			t.Errorf("%s, %s: apiVersion %q, want %q", where, tm.Kind, tm.APIVersion, k.apiVersion)
		}
		obj := k.decodeInto()
		if err := decodeStrict([]byte(doc), obj); err != nil {
			t.Errorf("%s, document %d (%s): %v", where, i+1, tm.Kind, err)
			continue
		}
		out = append(out, obj)
	}
	return out
}

func stripComments(doc string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

func loadK8s(t *testing.T) k8sObjects {
	t.Helper()
	dir := k8sDir(t)
	raw, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	o := k8sObjects{deployments: map[string]*appsv1.Deployment{}, services: map[string]*corev1.Service{},
		claims: map[string]*corev1.PersistentVolumeClaim{}}
	if err := decodeStrict(raw, &o.kust); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	for _, f := range o.kust.Resources {
		stream, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, obj := range decodeObjects(t, f, stream) {
			var meta metav1.ObjectMeta
			switch v := obj.(type) {
			case *appsv1.Deployment:
				o.deployments[v.Name], meta = v, v.ObjectMeta
			case *corev1.Service:
				o.services[v.Name], meta = v, v.ObjectMeta
			case *autoscalingv2.HorizontalPodAutoscaler:
				o.hpas, meta = append(o.hpas, v), v.ObjectMeta
			case *policyv1.PodDisruptionBudget:
				o.pdbs, meta = append(o.pdbs, v), v.ObjectMeta
			case *networkingv1.NetworkPolicy:
				o.policies, meta = append(o.policies, v), v.ObjectMeta
			case *corev1.PersistentVolumeClaim:
				o.claims[v.Name], meta = v, v.ObjectMeta
			default:
				t.Errorf("%s: a %T belongs elsewhere (Secrets are created by hand, ConfigMaps generated)", f, obj)
			}
			if meta.Name == "" {
				t.Errorf("%s: a %T without a name", f, obj)
			}
			// Applied into whatever namespace kubectl is given.
			if meta.Namespace != "" {
				t.Errorf("%s: %s names namespace %q", f, meta.Name, meta.Namespace)
			}
		}
	}
	return o
}

// TestK8sKustomizationListsEveryFile: kustomization.yaml applies every file
// of deploy/k8s and names no file that is missing; *.example.yaml files are
// examples, never applied.
func TestK8sKustomizationListsEveryFile(t *testing.T) {
	o := loadK8s(t)
	var listed []string
	listed = append(listed, o.kust.Resources...)
	for _, g := range o.kust.ConfigMapGenerator {
		listed = append(listed, g.Files...)
	}
	entries, err := os.ReadDir(k8sDir(t))
	if err != nil {
		t.Fatal(err)
	}
	var present []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() {
			t.Errorf("deploy/k8s/%s: a directory kustomization.yaml does not apply", n)
			continue
		}
		if n == "kustomization.yaml" || strings.HasSuffix(n, ".example.yaml") {
			continue
		}
		present = append(present, n)
	}
	slices.Sort(listed)
	slices.Sort(present)
	if !slices.Equal(listed, present) {
		t.Errorf("kustomization.yaml lists %v; deploy/k8s holds %v", listed, present)
	}
	if len(slices.Compact(slices.Clone(listed))) != len(listed) {
		t.Errorf("a file is listed twice: %v", listed)
	}
}

// TestK8sCaddyfileIsDeployCaddyfile: kustomize reads only files under
// deploy/k8s, so the Caddyfile there is a copy; it must stay the one the
// other deployments and the Caddy tests use.
func TestK8sCaddyfileIsDeployCaddyfile(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(repoRoot(t), "deploy", "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(k8sDir(t), "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("deploy/k8s/Caddyfile differs from deploy/Caddyfile: cp deploy/Caddyfile deploy/k8s/Caddyfile")
	}
}

// TestK8sWorkloads checks every Deployment: replica counts, images, probes,
// resources and a non-root, read-only, capability-free container.
func TestK8sWorkloads(t *testing.T) {
	o := loadK8s(t)
	compose := loadCompose(t)
	wantImages := map[string]string{
		"judge":     service(t, compose, "judge").Image,
		"interview": service(t, compose, "interview").Image,
		"caddy":     service(t, compose, "caddy").Image,
		"redis":     "redis:7",
	}
	wantReplicas := map[string]int32{"judge": 3, "interview": 2}
	if got := slices.Sorted(maps.Keys(o.deployments)); !slices.Equal(got, slices.Sorted(maps.Keys(wantImages))) {
		t.Fatalf("deployments %v, want %v", got, slices.Sorted(maps.Keys(wantImages)))
	}
	for name, d := range o.deployments {
		t.Run(name, func(t *testing.T) {
			if want, ok := wantReplicas[name]; ok && (d.Spec.Replicas == nil || *d.Spec.Replicas != want) {
				t.Errorf("replicas %v, want %d", d.Spec.Replicas, want)
			}
			sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
			if err != nil || sel.Empty() || !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
				t.Errorf("selector %v does not select the pod labels %v (%v)", d.Spec.Selector, d.Spec.Template.Labels, err)
			}
			pod := d.Spec.Template.Spec
			if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
				t.Error("the service account token is mounted; nothing here calls the Kubernetes API")
			}
			psc := pod.SecurityContext
			if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser == 0 {
				t.Errorf("pod securityContext %+v: want runAsNonRoot and a non-zero runAsUser", psc)
			}
			if len(pod.Containers) != 1 || len(pod.InitContainers) != 0 {
				t.Fatalf("%d containers, %d init containers; want one container", len(pod.Containers), len(pod.InitContainers))
			}
			c := pod.Containers[0]
			if c.Image != wantImages[name] {
				t.Errorf("image %q, want %q", c.Image, wantImages[name])
			}
			checkResources(t, c)
			checkContainerSecurity(t, name, c)
			checkProbes(t, name, c)
			checkMounts(t, pod, c)
		})
	}
	// The images kustomization.yaml can retarget are the ones in use.
	for _, img := range o.kust.Images {
		if !slices.ContainsFunc(slices.Collect(maps.Values(wantImages)), func(s string) bool {
			return strings.SplitN(s, ":", 2)[0] == img.Name
		}) {
			t.Errorf("kustomization.yaml images: %q is not an image of the manifests", img.Name)
		}
	}
}

func checkResources(t *testing.T, c corev1.Container) {
	t.Helper()
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		req, okReq := c.Resources.Requests[r]
		lim, okLim := c.Resources.Limits[r]
		if !okReq || !okLim || req.Sign() <= 0 {
			t.Errorf("%s: %s request %v / limit %v; want both", c.Name, r, c.Resources.Requests, c.Resources.Limits)
			continue
		}
		if lim.Cmp(req) < 0 {
			t.Errorf("%s: %s limit %s below its request %s", c.Name, r, lim.String(), req.String())
		}
	}
}

func checkContainerSecurity(t *testing.T, name string, c corev1.Container) {
	t.Helper()
	sc := c.SecurityContext
	if sc == nil {
		t.Fatal("no container securityContext")
	}
	if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("allowPrivilegeEscalation is not false")
	}
	if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Error("readOnlyRootFilesystem is not true")
	}
	if sc.Privileged != nil && *sc.Privileged {
		t.Error("privileged")
	}
	if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("capabilities %+v: want drop ALL", sc.Capabilities)
	}
	// Only Caddy's binary needs a capability it may hold (see caddy.yaml);
	// NET_BIND_SERVICE is the one the restricted pod security standard allows.
	wantAdd := []corev1.Capability(nil)
	if name == "caddy" {
		wantAdd = []corev1.Capability{"NET_BIND_SERVICE"}
	}
	if sc.Capabilities != nil && !slices.Equal(sc.Capabilities.Add, wantAdd) {
		t.Errorf("capabilities added %v, want %v", sc.Capabilities.Add, wantAdd)
	}
}

// containerPort resolves a probe's or Service's port (a name or a number)
// to a port the container declares.
func containerPort(c corev1.Container, p intstr.IntOrString) (int32, bool) {
	for _, cp := range c.Ports {
		if (p.Type == intstr.String && p.StrVal == cp.Name) || (p.Type == intstr.Int && p.IntVal == cp.ContainerPort) {
			return cp.ContainerPort, true
		}
	}
	return 0, false
}

func checkProbes(t *testing.T, name string, c corev1.Container) {
	t.Helper()
	probes := map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe}
	for kind, p := range probes {
		if p == nil {
			t.Errorf("no %s probe", kind)
			continue
		}
		switch {
		case p.HTTPGet != nil:
			if _, ok := containerPort(c, p.HTTPGet.Port); !ok {
				t.Errorf("%s probe on port %v, which the container does not declare", kind, p.HTTPGet.Port.String())
			}
		case p.TCPSocket != nil:
			if _, ok := containerPort(c, p.TCPSocket.Port); !ok {
				t.Errorf("%s probe on port %v, which the container does not declare", kind, p.TCPSocket.Port.String())
			}
		case p.Exec == nil:
			t.Errorf("%s probe without a handler", kind)
		}
	}
	if name != "judge" && name != "interview" {
		return
	}
	// Both services: alive while the process serves, ready while it can
	// answer (the interview's /readyz asks the database).
	for kind, path := range map[string]string{"liveness": "/healthz", "readiness": "/readyz"} {
		if p := probes[kind]; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path {
			t.Errorf("%s probe %+v, want GET %s", kind, p, path)
		}
	}
}

func checkMounts(t *testing.T, pod corev1.PodSpec, c corev1.Container) {
	t.Helper()
	for _, m := range c.VolumeMounts {
		if !slices.ContainsFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name }) {
			t.Errorf("mount %s of a volume the pod does not have", m.Name)
		}
	}
}

// readmeSettings reads the settings table of README.md: for each service,
// the variables whose "used by" names it (or "both").
func readmeSettings(t *testing.T) map[string]map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")
	out := map[string]map[string]bool{"judge": {}, "interview": {}}
	for line := range strings.SplitSeq(string(raw), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		usedBy := strings.TrimSpace(cells[2])
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			for svc := range out {
				if usedBy == "both" || strings.Contains(usedBy, svc) {
					out[svc][m[1]] = true
				}
			}
		}
	}
	if len(out["judge"]) < 5 || len(out["interview"]) < 5 {
		t.Fatalf("README settings table not found: %v", out)
	}
	return out
}

// TestK8sEnvironment: each container gets only settings its program reads
// (the README's settings table for the services, the Caddyfile's
// placeholders for Caddy), secrets come from the Secret the example shows,
// other references resolve, and the addresses point at the Services.
func TestK8sEnvironment(t *testing.T) {
	o := loadK8s(t)
	settings := readmeSettings(t)
	caddyfile, err := os.ReadFile(filepath.Join(repoRoot(t), "deploy", "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	settings["caddy"] = map[string]bool{}
	for _, m := range regexp.MustCompile(`\{\$([A-Z_][A-Z0-9_]*)`).FindAllSubmatch(caddyfile, -1) {
		settings["caddy"][string(m[1])] = true
	}

	// The Secret's keys, from the example (which must decode as a Secret).
	raw, err := os.ReadFile(filepath.Join(k8sDir(t), "secret.example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var secretKeys []string
	for _, obj := range decodeObjects(t, "secret.example.yaml", raw) {
		s, ok := obj.(*corev1.Secret)
		if !ok {
			t.Fatalf("secret.example.yaml holds a %T", obj)
		}
		if s.Name != "judgeworks" {
			t.Errorf("example secret named %q, want judgeworks", s.Name)
		}
		secretKeys = slices.Sorted(maps.Keys(s.StringData))
	}
	settingsLiterals := map[string]bool{}
	for _, g := range o.kust.ConfigMapGenerator {
		if g.Name == "judgeworks-settings" {
			for _, l := range g.Literals {
				k, _, _ := strings.Cut(l, "=")
				settingsLiterals[k] = true
			}
		}
	}

	// Values that are secrets must come from the Secret, never inline.
	mustBeSecret := map[string]bool{"JUDGE_API_KEYS": true, "JUDGE_API_KEY": true, "DATABASE_URL": true,
		"JWT_SECRET": true, "LLM_API_KEY": true, "VOICE_API_KEY": true}
	var usedSecretKeys []string
	env := map[string]map[string]string{} // deployment → literal values
	for name, d := range o.deployments {
		env[name] = map[string]string{}
		c := d.Spec.Template.Spec.Containers[0]
		if len(c.EnvFrom) != 0 {
			t.Errorf("%s: envFrom hides which settings reach the container; name each", name)
		}
		for _, e := range c.Env {
			if known, ok := settings[name]; ok && !known[e.Name] {
				t.Errorf("%s: %s is not a setting %s reads", name, e.Name, name)
			} else if !ok && len(c.Env) > 0 {
				t.Errorf("%s: sets %s, but nothing says it reads settings", name, e.Name)
			}
			switch {
			case e.ValueFrom == nil:
				if mustBeSecret[e.Name] {
					t.Errorf("%s: %s is inline; it belongs in the Secret", name, e.Name)
				}
				env[name][e.Name] = e.Value
			case e.ValueFrom.SecretKeyRef != nil:
				ref := e.ValueFrom.SecretKeyRef
				if ref.Name != "judgeworks" {
					t.Errorf("%s: %s from Secret %q, want judgeworks", name, e.Name, ref.Name)
				}
				usedSecretKeys = append(usedSecretKeys, ref.Key)
			case e.ValueFrom.ConfigMapKeyRef != nil:
				ref := e.ValueFrom.ConfigMapKeyRef
				if ref.Name != "judgeworks-settings" || !settingsLiterals[ref.Key] {
					t.Errorf("%s: %s from ConfigMap %s key %s, which kustomization.yaml does not generate", name, e.Name, ref.Name, ref.Key)
				}
				if mustBeSecret[e.Name] {
					t.Errorf("%s: %s from a ConfigMap; it belongs in the Secret", name, e.Name)
				}
			default:
				t.Errorf("%s: %s has an unexpected source", name, e.Name)
			}
		}
	}
	slices.Sort(usedSecretKeys)
	if got := slices.Compact(usedSecretKeys); !slices.Equal(got, secretKeys) {
		t.Errorf("manifests read Secret keys %v; secret.example.yaml shows %v", got, secretKeys)
	}

	// The judge's replicas share one Redis, the redis Service; the
	// interview service does not read REDIS_URL, so it is not given one.
	if got := env["judge"]["REDIS_URL"]; got != "redis://redis:6379/0" {
		t.Errorf("judge: REDIS_URL %q, want redis://redis:6379/0", got)
	}
	if got, ok := env["interview"]["REDIS_URL"]; ok {
		t.Errorf("interview: REDIS_URL %q set, but the service does not read it", got)
	}
	// Addresses that name a Service must name one that exists, on its port.
	for _, tc := range []struct{ deployment, key, value string }{
		{"interview", "JUDGE_URL", env["interview"]["JUDGE_URL"]},
		{"judge", "REDIS_URL", env["judge"]["REDIS_URL"]},
		{"caddy", "JUDGE_UPSTREAM", "//" + env["caddy"]["JUDGE_UPSTREAM"]},
		{"caddy", "INTERVIEW_UPSTREAM", "//" + env["caddy"]["INTERVIEW_UPSTREAM"]},
	} {
		u, err := url.Parse(tc.value)
		if err != nil || u.Hostname() == "" {
			t.Errorf("%s: %s = %q is not an address", tc.deployment, tc.key, tc.value)
			continue
		}
		s, ok := o.services[u.Hostname()]
		port, _ := strconv.Atoi(u.Port())
		if !ok || !slices.ContainsFunc(s.Spec.Ports, func(p corev1.ServicePort) bool { return int(p.Port) == port }) {
			t.Errorf("%s: %s = %q names no Service port", tc.deployment, tc.key, tc.value)
		}
	}
	// The services listen where their Services send traffic.
	for svc, addrKey := range map[string]string{"judge": "JUDGE_ADDR", "interview": "INTERVIEW_ADDR", "caddy": "CADDY_ADDR"} {
		c := o.deployments[svc].Spec.Template.Spec.Containers[0]
		port, err := strconv.Atoi(strings.TrimPrefix(env[svc][addrKey], ":"))
		if err != nil || !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return int(p.ContainerPort) == port }) {
			t.Errorf("%s: %s = %q is not a declared container port", svc, addrKey, env[svc][addrKey])
		}
	}
	if got := env["caddy"]["CADDY_BIND"]; got != "0.0.0.0" {
		t.Errorf("caddy: CADDY_BIND %q; inside a pod it must listen on every interface", got)
	}
	for _, svc := range []string{"judge", "interview"} {
		if got := env[svc]["APP_ENV"]; got != "production" {
			t.Errorf("%s: APP_ENV %q, want production", svc, got)
		}
	}
}

// TestK8sServicesSelectDeployments: every Service selects the pods of exactly
// one Deployment and targets a port their container declares.
func TestK8sServicesSelectDeployments(t *testing.T) {
	o := loadK8s(t)
	for name, s := range o.services {
		sel := labels.SelectorFromSet(s.Spec.Selector)
		if len(s.Spec.Selector) == 0 {
			t.Errorf("service %s selects nothing", name)
			continue
		}
		var matched []*appsv1.Deployment
		for _, d := range o.deployments {
			if sel.Matches(labels.Set(d.Spec.Template.Labels)) {
				matched = append(matched, d)
			}
		}
		if len(matched) != 1 {
			t.Errorf("service %s selects the pods of %d deployments, want 1", name, len(matched))
			continue
		}
		c := matched[0].Spec.Template.Spec.Containers[0]
		for _, p := range s.Spec.Ports {
			if _, ok := containerPort(c, p.TargetPort); !ok {
				t.Errorf("service %s port %d targets %s, which deployment %s does not declare", name, p.Port, p.TargetPort.String(), matched[0].Name)
			}
		}
	}
	for _, want := range []string{"judge", "interview", "redis", "caddy"} {
		if o.services[want] == nil {
			t.Errorf("no Service %s", want)
		}
	}
}

// TestK8sJudgeScaling: the autoscaler and the disruption budget act on the
// judge and on nothing else.
func TestK8sJudgeScaling(t *testing.T) {
	o := loadK8s(t)
	judge := o.deployments["judge"]
	if judge == nil {
		t.Fatal("no judge deployment")
	}
	if len(o.hpas) != 1 {
		t.Fatalf("%d autoscalers, want 1", len(o.hpas))
	}
	h := o.hpas[0]
	ref := h.Spec.ScaleTargetRef
	if ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || ref.Name != judge.Name {
		t.Errorf("autoscaler targets %+v, want the judge Deployment", ref)
	}
	if h.Spec.MinReplicas == nil || *h.Spec.MinReplicas != *judge.Spec.Replicas || h.Spec.MaxReplicas <= *h.Spec.MinReplicas {
		t.Errorf("autoscaler %v..%d, want from the judge's %d replicas upwards", h.Spec.MinReplicas, h.Spec.MaxReplicas, *judge.Spec.Replicas)
	}
	if len(h.Spec.Metrics) != 1 || h.Spec.Metrics[0].Resource == nil || h.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU ||
		h.Spec.Metrics[0].Resource.Target.Type != autoscalingv2.UtilizationMetricType || h.Spec.Metrics[0].Resource.Target.AverageUtilization == nil {
		t.Errorf("autoscaler metrics %+v, want CPU utilization", h.Spec.Metrics)
	}

	if len(o.pdbs) != 1 {
		t.Fatalf("%d disruption budgets, want 1", len(o.pdbs))
	}
	p := o.pdbs[0]
	sel, err := metav1.LabelSelectorAsSelector(p.Spec.Selector)
	if err != nil || sel.Empty() {
		t.Fatalf("disruption budget selector %v: %v", p.Spec.Selector, err)
	}
	for name, d := range o.deployments {
		if matches := sel.Matches(labels.Set(d.Spec.Template.Labels)); matches != (name == "judge") {
			t.Errorf("disruption budget selects %s: %v", name, matches)
		}
	}
	switch {
	case p.Spec.MinAvailable != nil && p.Spec.MaxUnavailable == nil:
		if n := p.Spec.MinAvailable.IntValue(); p.Spec.MinAvailable.Type != intstr.Int || n < 2 || n >= int(*judge.Spec.Replicas) {
			t.Errorf("minAvailable %s: want 2 or more and fewer than the %d replicas, so a drain can proceed", p.Spec.MinAvailable.String(), *judge.Spec.Replicas)
		}
	case p.Spec.MaxUnavailable != nil && p.Spec.MinAvailable == nil:
		if p.Spec.MaxUnavailable.Type != intstr.Int || p.Spec.MaxUnavailable.IntValue() != 1 {
			t.Errorf("maxUnavailable %s, want 1", p.Spec.MaxUnavailable.String())
		}
	default:
		t.Error("disruption budget needs exactly one of minAvailable and maxUnavailable")
	}
}

// TestK8sRedisPolicy: Redis has no password, so only the two services may
// reach it.
func TestK8sRedisPolicy(t *testing.T) {
	o := loadK8s(t)
	np := policyFor(t, o, "redis")
	sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil || !sel.Matches(labels.Set(o.deployments["redis"].Spec.Template.Labels)) {
		t.Fatalf("policy selects %v, not the redis pods (%v)", np.Spec.PodSelector, err)
	}
	allowed := map[string]bool{}
	for _, rule := range np.Spec.Ingress {
		for _, peer := range rule.From {
			if peer.PodSelector == nil || peer.NamespaceSelector != nil || peer.IPBlock != nil {
				t.Errorf("peer %+v: want pods of this namespace only", peer)
				continue
			}
			ps, err := metav1.LabelSelectorAsSelector(peer.PodSelector)
			if err != nil || ps.Empty() {
				t.Errorf("peer selector %v admits every pod (%v)", peer.PodSelector, err)
				continue
			}
			for name, d := range o.deployments {
				if ps.Matches(labels.Set(d.Spec.Template.Labels)) {
					allowed[name] = true
				}
			}
		}
	}
	if got := slices.Sorted(maps.Keys(allowed)); !slices.Equal(got, []string{"judge"}) {
		t.Errorf("redis reachable from %v, want the judge only", got)
	}
}

// TestRedisNeverEvicts: the Redis of deploy/k8s and of compose's replicas
// profile run alike, memory-bounded and with maxmemory-policy noeviction.
// Under an eviction policy one key's stored answers could push out the
// rate-limit buckets (a bucket evicted starts full again) or another key's
// answers; the judge bounds its answers per key itself (docs/operations.md,
// "Redis").
func TestRedisNeverEvicts(t *testing.T) {
	k8s := k8sRedisArgs(t)
	compose := []string(service(t, loadCompose(t, "COMPOSE_PROFILES=replicas"), "redis").Command)
	for name, args := range map[string][]string{"deploy/k8s/redis.yaml": k8s, "docker-compose.yml": compose} {
		flags := redisFlags(args)
		if flags["--maxmemory-policy"] != "noeviction" || flags["--maxmemory"] == "" {
			t.Errorf("%s: redis runs with %q, want --maxmemory and --maxmemory-policy noeviction", name, args)
		}
		// With protected mode on and no password, Redis answers only
		// loopback clients: the judges in other containers or pods
		// would each fall back to their own buckets.
		if flags["--protected-mode"] != "no" {
			t.Errorf("%s: redis runs with %q, want --protected-mode no", name, args)
		}
	}
	if !slices.Equal(k8s, compose) {
		t.Errorf("redis flags differ:\n k8s     %q\n compose %q", k8s, compose)
	}
}

// TestRedisPersists: the Redis of deploy/k8s and of compose's replicas
// profile keep what keys spent across a restart: every write logged to the
// append-only file, in a data directory on storage that outlives the
// container (a named volume; a PersistentVolumeClaim of the manifests,
// mounted by one pod at a time). TestShippedRedisKeepsSpend runs these
// flags.
func TestRedisPersists(t *testing.T) {
	k8s := k8sRedisArgs(t)
	compose := service(t, loadCompose(t, "COMPOSE_PROFILES=replicas"), "redis")
	for name, args := range map[string][]string{"deploy/k8s/redis.yaml": k8s, "docker-compose.yml": compose.Command} {
		if flags := redisFlags(args); flags["--appendonly"] != "yes" {
			t.Errorf("%s: redis runs with %q, want --appendonly yes", name, args)
		}
	}
	if !slices.ContainsFunc(compose.Volumes, func(v types.ServiceVolumeConfig) bool {
		return v.Type == types.VolumeTypeVolume && v.Target == "/data" && !v.ReadOnly
	}) {
		t.Errorf("docker-compose.yml: redis's /data is not a writable named volume: %+v", compose.Volumes)
	}

	o := loadK8s(t)
	d := o.deployments["redis"]
	pod := d.Spec.Template.Spec
	var claim string
	for _, m := range pod.Containers[0].VolumeMounts {
		if m.MountPath != "/data" {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.PersistentVolumeClaim != nil && !m.ReadOnly {
				claim = v.PersistentVolumeClaim.ClaimName
			}
		}
	}
	pvc := o.claims[claim]
	if pvc == nil {
		t.Fatalf("deploy/k8s/redis.yaml: /data is not on a PersistentVolumeClaim of the manifests (claim %q)", claim)
	}
	if size, ok := pvc.Spec.Resources.Requests[corev1.ResourceStorage]; !ok || size.Cmp(resource.MustParse("256Mi")) < 0 {
		t.Errorf("claim %s requests %v, want room for an append-only file of Redis's 192mb and its rewrite", claim, pvc.Spec.Resources.Requests)
	}
	if !slices.Equal(pvc.Spec.AccessModes, []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}) {
		t.Errorf("claim %s access modes %v, want ReadWriteOnce", claim, pvc.Spec.AccessModes)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("redis: replicas %v, strategy %q; want one pod, Recreate (never two on one append-only file)", d.Spec.Replicas, d.Spec.Strategy.Type)
	}
}

// redisFlags are the values of a redis-server command line's --flags.
func redisFlags(args []string) map[string]string {
	flags := map[string]string{}
	for i := 0; i+1 < len(args); i++ {
		if strings.HasPrefix(args[i], "--") {
			flags[args[i]] = args[i+1]
		}
	}
	return flags
}

func k8sRedisArgs(t *testing.T) []string {
	t.Helper()
	c := loadK8s(t).deployments["redis"].Spec.Template.Spec.Containers[0]
	return append(append([]string(nil), c.Command...), c.Args...)
}

// TestK8sKustomizeBuilds builds deploy/k8s as kubectl apply -k does, with the
// kustomize library: the generated ConfigMaps exist under their hashed names,
// every reference to them was rewritten and names keys they hold, the Caddy
// ConfigMap holds deploy/Caddyfile, and the output decodes strictly.
func TestK8sKustomizeBuilds(t *testing.T) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resMap, err := k.Run(filesys.MakeFsOnDisk(), k8sDir(t))
	if err != nil {
		t.Fatalf("kustomize build deploy/k8s: %v", err)
	}
	out, err := resMap.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	configMaps := map[string]*corev1.ConfigMap{}
	var deployments []*appsv1.Deployment
	for _, obj := range decodeObjects(t, "kustomize build", out) {
		switch v := obj.(type) {
		case *corev1.ConfigMap:
			configMaps[v.Name] = v
		case *appsv1.Deployment:
			deployments = append(deployments, v)
		}
	}
	if len(deployments) != 4 || len(configMaps) != 2 {
		t.Fatalf("built %d deployments and %d config maps, want 4 and 2", len(deployments), len(configMaps))
	}
	caddyfile, err := os.ReadFile(filepath.Join(repoRoot(t), "deploy", "Caddyfile"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range deployments {
		pod := d.Spec.Template.Spec
		for _, v := range pod.Volumes {
			if v.ConfigMap == nil {
				continue
			}
			cm := configMaps[v.ConfigMap.Name]
			if cm == nil {
				t.Errorf("%s: volume %s mounts ConfigMap %q, which the build does not hold", d.Name, v.Name, v.ConfigMap.Name)
				continue
			}
			if d.Name == "caddy" && cm.Data["Caddyfile"] != string(caddyfile) {
				t.Errorf("caddy mounts ConfigMap %s, whose Caddyfile is not deploy/Caddyfile", cm.Name)
			}
		}
		for _, e := range pod.Containers[0].Env {
			if e.ValueFrom == nil || e.ValueFrom.ConfigMapKeyRef == nil {
				continue
			}
			ref := e.ValueFrom.ConfigMapKeyRef
			cm := configMaps[ref.Name]
			if cm == nil {
				t.Errorf("%s: %s from ConfigMap %q, which the build does not hold", d.Name, e.Name, ref.Name)
				continue
			}
			if _, ok := cm.Data[ref.Key]; !ok {
				t.Errorf("%s: %s from key %s, which ConfigMap %s lacks", d.Name, e.Name, ref.Key, ref.Name)
			}
		}
	}
}

// policyFor returns the one NetworkPolicy whose pod selector picks the pods
// of deployment name.
func policyFor(t *testing.T, o k8sObjects, name string) *networkingv1.NetworkPolicy {
	t.Helper()
	var found []*networkingv1.NetworkPolicy
	for _, np := range o.policies {
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err == nil && sel.Matches(labels.Set(o.deployments[name].Spec.Template.Labels)) {
			found = append(found, np)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d network policies select the %s pods, want 1", len(found), name)
	}
	return found[0]
}

// peers names what a policy's ingress (or egress) peers admit: this
// namespace's deployments by name, "scraper" for the monitoring namespace's
// Prometheus pods, and "anywhere" for a rule without peers or with an IP
// block; ports are the rules' ports as written.
func peers(t *testing.T, o k8sObjects, rules []networkingv1.NetworkPolicyPeer, ports []networkingv1.NetworkPolicyPort) map[string][]string {
	t.Helper()
	var ps []string
	for _, p := range ports {
		if p.Port != nil {
			ps = append(ps, p.Port.String())
		}
	}
	out := map[string][]string{}
	if len(rules) == 0 {
		out["anywhere"] = ps
	}
	for _, peer := range rules {
		switch {
		case peer.IPBlock != nil:
			out["anywhere"] = ps
		case peer.NamespaceSelector != nil:
			ns, nerr := metav1.LabelSelectorAsSelector(peer.NamespaceSelector)
			pods, perr := metav1.LabelSelectorAsSelector(peer.PodSelector)
			if nerr != nil || perr != nil || peer.PodSelector == nil ||
				!ns.Matches(labels.Set{"kubernetes.io/metadata.name": "monitoring"}) || ns.Matches(labels.Set{"kubernetes.io/metadata.name": "default"}) ||
				!pods.Matches(labels.Set{"app.kubernetes.io/name": "prometheus"}) || pods.Empty() {
				t.Errorf("peer %+v admits more than the scraper", peer)
			}
			out["scraper"] = append(out["scraper"], ps...)
		case peer.PodSelector != nil:
			sel, err := metav1.LabelSelectorAsSelector(peer.PodSelector)
			if err != nil || sel.Empty() {
				t.Errorf("peer selector %v admits every pod (%v)", peer.PodSelector, err)
				continue
			}
			for name, d := range o.deployments {
				if sel.Matches(labels.Set(d.Spec.Template.Labels)) {
					out[name] = append(out[name], ps...)
				}
			}
		}
	}
	return out
}

// TestK8sNetworkPolicies: only Caddy reaches the interview service, Caddy
// and the interview service the judge, and besides them only the scraper,
// on the service's port (where /metrics is); the interview service reaches
// the judge, Postgres, DNS and HTTPS, nothing else. Caddy's pods are then
// the only proxies the interview service can hear from, which is what its
// TRUSTED_PROXIES=private trusts; Caddy itself is told the proxies in
// front of it by CADDY_TRUSTED_PROXIES, a setting the docs explain.
func TestK8sNetworkPolicies(t *testing.T) {
	o := loadK8s(t)
	ingress := func(name string) map[string][]string {
		np := policyFor(t, o, name)
		if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
			t.Fatalf("%s: the policy does not restrict ingress", name)
		}
		all := map[string][]string{}
		for _, r := range np.Spec.Ingress {
			for k, v := range peers(t, o, r.From, r.Ports) {
				all[k] = append(all[k], v...)
			}
		}
		return all
	}
	for name, want := range map[string]map[string][]string{
		"interview": {"caddy": {"http"}, "scraper": {"http"}},
		"judge":     {"caddy": {"http"}, "interview": {"http"}, "scraper": {"http"}},
	} {
		if got := ingress(name); !maps.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s reachable from %v, want %v", name, got, want)
		}
	}

	np := policyFor(t, o, "interview")
	if !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeEgress) {
		t.Fatal("the interview service's egress is not restricted")
	}
	reach := map[string][]string{}
	for _, r := range np.Spec.Egress {
		for k, v := range peers(t, o, r.To, r.Ports) {
			reach[k] = append(reach[k], v...)
		}
	}
	if want := map[string][]string{"judge": {"8081"}, "anywhere": {"5432", "53", "53", "443"}}; !maps.EqualFunc(reach, want, slices.Equal) {
		t.Errorf("the interview service reaches %v, want %v", reach, want)
	}

	interviewEnv, caddyEnv := map[string]string{}, map[string]string{}
	for _, e := range o.deployments["interview"].Spec.Template.Spec.Containers[0].Env {
		if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
			interviewEnv[e.Name] = e.ValueFrom.ConfigMapKeyRef.Key
		}
	}
	for _, e := range o.deployments["caddy"].Spec.Template.Spec.Containers[0].Env {
		if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil {
			caddyEnv[e.Name] = e.ValueFrom.ConfigMapKeyRef.Key
		}
	}
	if interviewEnv["TRUSTED_PROXIES"] != "TRUSTED_PROXIES" || caddyEnv["CADDY_TRUSTED_PROXIES"] != "CADDY_TRUSTED_PROXIES" {
		t.Errorf("trusted proxies not from the settings: interview %v, caddy %v", interviewEnv, caddyEnv)
	}
	ops, err := os.ReadFile(filepath.Join(repoRoot(t), "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	k8s := string(ops[strings.Index(string(ops), "## Kubernetes"):])
	if !strings.Contains(k8s, "CADDY_TRUSTED_PROXIES") || !strings.Contains(k8s, "network.yaml") {
		t.Error("docs/operations.md, Kubernetes, does not say how to trust the proxy in front of Caddy or what network.yaml admits")
	}
	if strings.Contains(k8s, "every judge and interview pod gets\n`REDIS_URL") || strings.Contains(k8s, "judge and interview pod gets `REDIS_URL") {
		t.Error("docs/operations.md still says the interview service gets REDIS_URL")
	}
}
