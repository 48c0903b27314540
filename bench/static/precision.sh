#!/bin/sh
# precision.sh BIN OUTDIR [MODDIR]: precog vet's output on the sets that the
# static precision sections of bench/RESULTS.md measure, one file per set
# (OUTDIR/NAME.out, stdout and stderr) and one /usr/bin/time line per set
# (OUTDIR/times), so that two binaries' outputs are compared with cmp, in
# bash, leaving out the progress lines precog vet prints every 30 s of a run
# (their count and text follow the load):
#
#	for f in before/*.out; do cmp -s <(grep -v '^progress at' $f) \
#		<(grep -v '^progress at' after/${f#before/}) || echo $f; done
#
# The corpus sets run from bench/corpus (its pinned versions); the modules
# are copies from the module proxy in MODDIR (default /tmp/precision-mods),
# fetched and `go mod tidy`-ed on first use, each vetted with ./... as a new
# user would (tests included; a module without a go.mod gets one from go mod
# init, as hystrix-go's user would make; a go 1.16 module whose tidy refuses
# to drop go 1.16's view is tidied with -compat=1.17, as its message says; a
# module whose tests embed certificates that its module zip lacks gets them
# from its own testdata/generate_certs.sh, as its user would run it; a module
# whose tests build only with a tag, as its Makefile passes it, gets the flags
# after its version: neoq's -tags testing).
set -u
bin=$(realpath "$1"); out=$(realpath -m "$2"); mods=${3:-/tmp/precision-mods}
corpus=$(cd "$(dirname "$0")/../corpus" && pwd)
mkdir -p "$out" "$mods"
run() { # NAME DIR ARGS...
	name=$1; dir=$2; shift 2
	(cd "$dir" && GOFLAGS=-mod=mod /usr/bin/time -o "$out/$name.time" \
		-f "$name %e s wall %U s user %M KB load=$(cut -d' ' -f1 /proc/loadavg)" \
		"$bin" vet "$@" >"$out/$name.out" 2>&1)
	tail -n 1 "$out/$name.time" >>"$out/times"
}
run std "$corpus" net/http context sync database/sql
run std-all "$corpus" -all net/http context sync database/sql
run xsync "$corpus" golang.org/x/sync/... github.com/sourcegraph/conc/...
run lru "$corpus" github.com/hashicorp/golang-lru/v2/... github.com/alitto/pond/v2/... github.com/panjf2000/ants/v2/...
run lru-all "$corpus" -all github.com/hashicorp/golang-lru/v2/... github.com/alitto/pond/v2/... github.com/panjf2000/ants/v2/...
while read -r name mod ver flags; do
	if [ ! -d "$mods/$name" ]; then
		dir=$(cd /tmp && go mod download -json "$mod@$ver" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
		cp -r "$dir" "$mods/$name" && chmod -R u+w "$mods/$name" &&
			(cd "$mods/$name" && { [ -f go.mod ] || go mod init "$mod"; } &&
				{ go mod tidy || go mod tidy -compat=1.17; } &&
				{ [ ! -f testdata/generate_certs.sh ] ||
					(cd testdata && bash generate_certs.sh >/dev/null 2>&1); })
	fi
	# shellcheck disable=SC2086 # flags are words
	run "$name" "$mods/$name" ${flags:-} ./...
done <<LIST
ttlcache github.com/jellydator/ttlcache/v3 v3.4.1
gcache github.com/bluele/gcache v0.0.2
freecache github.com/coocood/freecache v1.2.7
raft github.com/hashicorp/raft v1.8.0
workerpool github.com/gammazero/workerpool v1.3.0
mpb github.com/vbauerster/mpb/v8 v8.16.2
fsm github.com/looplab/fsm v1.0.3
cron github.com/robfig/cron/v3 v3.0.1
lumberjack gopkg.in/natefinch/lumberjack.v2 v2.2.1
watermill github.com/ThreeDotsLabs/watermill v1.5.1
fsnotify github.com/fsnotify/fsnotify v1.10.1
buntdb github.com/tidwall/buntdb v1.3.0
stateless github.com/qmuntal/stateless v1.7.2
amqp091 github.com/rabbitmq/amqp091-go v1.16.0
paho github.com/eclipse/paho.mqtt.golang v1.5.1
websocket github.com/coder/websocket v1.8.15
modbus github.com/simonvetter/modbus v1.6.4
smux github.com/xtaci/smux v1.5.58
mochi github.com/mochi-mqtt/server/v2 v2.7.9
quartz github.com/reugn/go-quartz v0.15.2
goevents github.com/docker/go-events v0.1.0
pool github.com/jolestar/go-commons-pool/v2 v2.1.2
gods github.com/Workiva/go-datastructures v1.1.7
failsafe-go github.com/failsafe-go/failsafe-go v0.9.8
go-nsq github.com/nsqio/go-nsq v1.1.0
goleveldb github.com/syndtr/goleveldb v1.0.0
hystrix-go github.com/afex/hystrix-go v0.0.0-20180502004556-fa1af6a1f4f5
dns github.com/miekg/dns v1.1.73
influx github.com/influxdata/influxdb-client-go/v2 v2.14.0
tail github.com/nxadm/tail v1.4.11
redigo github.com/gomodule/redigo v1.9.3
seaweedraft github.com/seaweedfs/raft v1.2.4
kcp github.com/xtaci/kcp-go/v5 v5.7.5
miniredis github.com/alicebob/miniredis/v2 v2.40.0
sipgo github.com/emiago/sipgo v1.7.3
pahogolang github.com/eclipse/paho.golang v0.23.0
statedb github.com/cilium/statedb v0.9.4
gubernator github.com/gubernator-io/gubernator/v2 v2.13.0
neoq github.com/acaloiaro/neoq v0.72.2 -tags testing
sentry github.com/getsentry/sentry-go v0.18.0
psrpc github.com/livekit/psrpc v0.8.2
workflows github.com/cschleiden/go-workflows v1.2.0
protoactor github.com/asynkron/protoactor-go v0.0.0-20240822202345-3c0e61ca19c9
goproxy github.com/elazarl/goproxy v1.9.3
transport github.com/pion/transport/v5 v5.1.5
goplugin github.com/hashicorp/go-plugin v1.8.0
nbio github.com/lesismal/nbio v1.6.8
LIST
