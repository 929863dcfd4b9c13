#!/usr/bin/env python3
"""Drives a `dledger serve` with aria2p (a real aria2 client) and prints what aria2p returned as one JSON
document. Usage: aria2p-drive.py PORT SECRET SLOW_URL FAST_URL. Exits 1 (with the reason on stderr) when
aria2p's answers are not what an aria2 user would see."""
import json
import os
import sys
import time

import aria2p

port, secret, slow_url, fast_url = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
api = aria2p.API(aria2p.Client(host="http://127.0.0.1", port=port, secret=secret))
seen = []


def note(kind):
    return lambda _api, gid: seen.append([kind, gid])


def check(condition, what):
    if not condition:
        print("aria2p-drive: " + what, file=sys.stderr, flush=True)
        os._exit(1)  # the notification thread would keep a plain exit waiting


def wait(what, predicate, seconds=20):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    check(False, "timed out waiting for " + what)


api.listen_to_notifications(
    threaded=True, on_download_start=note("start"), on_download_pause=note("pause"),
    on_download_stop=note("stop"), on_download_complete=note("complete"), on_download_error=note("error"))
time.sleep(0.5)

slow = api.add_uris([slow_url], options={"out": "slow.bin"})
check(len(slow.gid) == 16, "addUri answers a 16-digit gid")
fast = api.add_uris([fast_url])
# get_downloads is three calls (tellActive, tellWaiting, tellStopped): a download that starts or ends between
# them is in none, with aria2 as here. Both must show up in one listing within a few tries.
wait("both downloads in one listing", lambda: {slow.gid, fast.gid} <= {d.gid for d in api.get_downloads()}, 5)

check(api.pause([slow]) == [True], "pause answers True")
slow.update()
check(slow.status == "paused", "paused shows as paused, not " + slow.status)
check(api.resume([slow]) == [True], "resume answers True")
slow.update()
check(slow.status in ("waiting", "active"), "resumed shows waiting or active, not " + slow.status)

wait("the fast download to complete", lambda: api.get_download(fast.gid).status == "complete")
fast = api.get_download(fast.gid)
check(fast.total_length == fast.completed_length > 0,
      "complete means every byte: %d of %d" % (fast.completed_length, fast.total_length))
check(fast.name == fast_url.rsplit("/", 1)[1], "the name is the file's, not " + fast.name)
wait("the complete notification", lambda: ["complete", fast.gid] in seen)

# aria2p's API.remove also removes the download result (a purge here): the client's plain remove keeps the task
# in the to-delete list, where aria2 lists it as removed, until the purge.
check(api.client.remove(slow.gid) == slow.gid, "remove answers the gid")
check(api.get_download(slow.gid).status == "removed", "a removed download shows as removed")
check(api.purge() is True, "purge answers True")
check(slow.gid not in {d.gid for d in api.get_downloads()}, "purged downloads are gone")

check(api.set_global_options({"max-concurrent-downloads": "2"}), "changeGlobalOption answers OK")
check(api.get_global_options().max_concurrent_downloads == 2, "the new maximum is read back")
stat = api.get_stats()
check(stat.num_stopped_total >= 1, "the complete download is counted as stopped")

wait("the stop notification", lambda: ["stop", slow.gid] in seen)
api.stop_listening()
print(json.dumps({"slow": slow.gid, "fast": fast.gid, "notifications": seen}), flush=True)
