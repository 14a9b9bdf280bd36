#!/usr/bin/env bash
# Checks real threaded programs from Debian's packages under `record
# --threads`: output identical to a native run, and `replay --check` OK.
# node with a worker thread (8 threads: libuv's pool, V8's platform workers,
# the worker), at a 100 ms interval to keep the test short.
. "$(dirname "$0")/threads_real_lib.sh"

check node 42 --interval 100 -- node -e 'const {Worker} = require("worker_threads");
  const w = new Worker("require(\"worker_threads\").parentPort.postMessage(6 * 7)", {eval: true});
  w.on("message", (m) => { console.log(m); w.terminate(); });'

echo "replay_threads_node: OK"
