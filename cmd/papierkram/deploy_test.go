package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestDeployExample: the load balancer's configuration is one HAProxy accepts (haproxy -c,
// Debian's package), and the compose file wires two instances to one PostgreSQL with a
// drain delay, built from the repository's Dockerfile, behind that balancer, whose backends
// are exactly those instances and are checked on /ready.
func TestDeployExample(t *testing.T) {
	cfg := "../../deploy/haproxy/haproxy.cfg"
	if out, err := exec.Command("haproxy", "-c", "-f", cfg).CombinedOutput(); err != nil {
		t.Fatalf("haproxy -c: %v\n%s", err, out)
	}
	b, err := os.ReadFile("../../deploy/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Build       any               `yaml:"build"`
			Image       string            `yaml:"image"`
			Environment map[string]string `yaml:"environment"`
			DependsOn   any               `yaml:"depends_on"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(b, &compose); err != nil {
		t.Fatal(err)
	}
	haproxy, _ := os.ReadFile(cfg)
	if !strings.Contains(string(haproxy), "option httpchk GET /ready") {
		t.Fatal("the balancer does not check /ready")
	}
	instances := 0
	for name, s := range compose.Services {
		url := s.Environment["PAPIERKRAM_DATABASE_URL"]
		if url == "" {
			continue
		}
		instances++
		if !strings.HasPrefix(url, "postgres://") || !strings.Contains(url, "@db:5432/") || s.Environment["PAPIERKRAM_DRAIN_DELAY"] == "" || s.Build == nil {
			t.Errorf("%s: %+v", name, s)
		}
		if !strings.Contains(string(haproxy), "server "+name+" "+name+":8080 check") {
			t.Errorf("the balancer does not send to %s", name)
		}
	}
	if instances != 2 || compose.Services["db"].Image == "" || compose.Services["lb"].Build == nil {
		t.Fatalf("%d instances; services %v", instances, compose.Services)
	}
}
