#!/usr/bin/env bash
# Shows a real Prometheus scraping this service on loopback with the bearer key:
# installs Prometheus from Debian's packages when missing, lints /metrics with promtool,
# starts the service and Prometheus, waits for the target to be up and queries a counter.
# Usage: scripts/check-prometheus.sh   (ports: SERVICE_PORT=18090, PROMETHEUS_PORT=19090)
set -euo pipefail
cd "$(dirname "$0")/.."

SERVICE_PORT=${SERVICE_PORT:-18090}
PROMETHEUS_PORT=${PROMETHEUS_PORT:-19090}
KEY="check-prometheus-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
WORK=$(mktemp -d)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

if ! command -v prometheus >/dev/null || ! command -v promtool >/dev/null; then
  echo "installing prometheus from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus >/dev/null
fi
prometheus --version 2>&1 | head -1

npm run build >/dev/null 2>&1
SERVICE_API_KEY="$KEY" SERVICE_DATA_ROOT="$WORK/data" SERVICE_PORT="$SERVICE_PORT" SERVICE_HOST=127.0.0.1 \
  SERVICE_LOG_LEVEL=warning node dist/main.js >"$WORK/service.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
  curl -sf "http://127.0.0.1:$SERVICE_PORT/health" >/dev/null && break
  sleep 0.1
done
curl -sf "http://127.0.0.1:$SERVICE_PORT/health" >/dev/null || { echo "the service did not start"; cat "$WORK/service.log"; exit 1; }

# Some traffic, so that request series exist.
for path in /health /v1/admin/config /v1/jobs/unknown /v1/no/such/route; do
  curl -s -o /dev/null -H "Authorization: Bearer $KEY" "http://127.0.0.1:$SERVICE_PORT$path"
done

echo "--- promtool check metrics"
curl -sf -H "Authorization: Bearer $KEY" "http://127.0.0.1:$SERVICE_PORT/metrics" | promtool check metrics && echo "exposition: ok"

cat >"$WORK/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
scrape_configs:
  - job_name: memory-service
    metrics_path: /metrics
    authorization:
      type: Bearer
      credentials: $KEY
    static_configs:
      - targets: ["127.0.0.1:$SERVICE_PORT"]
YAML
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$PROMETHEUS_PORT" >"$WORK/prometheus.log" 2>&1 &
pids+=($!)

api="http://127.0.0.1:$PROMETHEUS_PORT/api/v1"
health=""
for _ in $(seq 1 60); do
  # Prometheus may not be listening yet: a failed poll is simply retried.
  health=$( (curl -s "$api/targets" || true) | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{try{const t=JSON.parse(s).data.activeTargets[0];console.log(t?`${t.health} ${t.lastError}`:"")}catch{console.log("")}})')
  case "$health" in up*) break ;; esac
  sleep 1
done
echo "--- target: ${health:-none}"
case "$health" in up*) ;; *) echo "the target never came up"; tail -20 "$WORK/prometheus.log"; exit 1 ;; esac

sleep 2
echo "--- query: sodamem_http_requests_total"
result=$(curl -s "$api/query" --data-urlencode 'query=sodamem_http_requests_total')
echo "$result" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const r=JSON.parse(s).data.result;for(const x of r)console.log(`${x.metric.method} ${x.metric.path} ${x.metric.status} = ${x.value[1]}`);if(r.length===0)process.exit(1)})'
echo "prometheus scraped the service: ok"
