#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""
Opens pages in Debian's chromium, headless, and checks what a person would
see: drives it over the DevTools protocol on a pipe (--remote-debugging-
pipe: no port, no network), waits for the expected text to be rendered,
keeps a screenshot, and fails on any console error, uncaught exception,
error log entry, or request that leaves the machine (only file:, data:,
blob: and about: are loaded).

Usage: cdp_visit.py VISITS.json
VISITS.json: a list of {"url": URL, "png": PATH,
  "frame_has": [TEXT...],   # in the viewer's text (its frame, if any)
  "frame_cells": [TEXT...], # exact texts of table cells there
  "page_has": [TEXT...]}    # in the top page's text
Waits are for conditions, each up to 90 s of real time; nothing is timed.
Exit status 0, or 1 with the reasons on stderr.
"""
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

WAIT = 90
LOCAL = ('file:', 'data:', 'blob:', 'about:', 'chrome-error:')


class Browser:
    def __init__(self, log):
        self.profile = tempfile.mkdtemp(prefix='btrace-chromium.')
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()
        hi = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_r, from_w)]

        def fds():
            os.dup2(hi[0], 3)
            os.dup2(hi[1], 4)

        self.proc = subprocess.Popen(
            ['chromium', '--headless', '--no-sandbox', '--remote-debugging-pipe',
             '--user-data-dir=' + self.profile, '--no-first-run',
             '--no-default-browser-check', '--disable-extensions',
             '--disable-background-networking', '--disable-component-update',
             '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
             '--hide-scrollbars', '--mute-audio', '--window-size=1400,800',
             'about:blank'],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log,
            pass_fds=(3, 4), preexec_fn=fds)
        for fd in [to_r, from_w] + hi:
            os.close(fd)
        self.buf = b''
        self.next_id = 0
        self.events = []
        self.session = None

    def close(self):
        try:
            self.send('Browser.close', session=False)
        except OSError:
            pass
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            msg['sessionId'] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b'\0')
        return self.next_id

    def receive(self, deadline):
        while b'\0' not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.from_r], [], [], left)[0]:
                raise TimeoutError('chromium did not answer')
            chunk = os.read(self.from_r, 1 << 20)
            if not chunk:
                raise EOFError('chromium went away')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def call(self, method, params=None, session=True):
        want = self.send(method, params, session)
        deadline = time.monotonic() + WAIT
        while True:
            msg = self.receive(deadline)
            if msg.get('id') == want:
                if 'error' in msg:
                    raise RuntimeError('%s: %s' % (method, msg['error']))
                return msg['result']
            if 'method' in msg:
                self.events.append(msg)

    def evaluate(self, expression, context=None):
        params = {'expression': expression, 'returnByValue': True, 'awaitPromise': True}
        if context:
            params['contextId'] = context
        r = self.call('Runtime.evaluate', params)
        if 'exceptionDetails' in r:
            return None
        return r['result'].get('value')


def problems(events):
    """The console errors, exceptions and outside requests among @events."""
    out = []
    for e in events:
        m, p = e['method'], e.get('params', {})
        if m == 'Runtime.exceptionThrown':
            d = p['exceptionDetails']
            out.append('exception: %s' % d.get('exception', {}).get('description', d.get('text')))
        elif m == 'Runtime.consoleAPICalled' and p['type'] in ('error', 'assert'):
            out.append('console.%s: %s' % (p['type'], ' '.join(
                str(a.get('value', a.get('description'))) for a in p['args'])))
        elif m == 'Log.entryAdded' and p['entry']['level'] == 'error':
            out.append('log: %s %s' % (p['entry']['text'], p['entry'].get('url', '')))
        elif m == 'Network.requestWillBeSent' and not p['request']['url'].startswith(LOCAL):
            out.append('request outside the page: %s' % p['request']['url'])
        elif m == 'Network.loadingFailed':
            out.append('load failed: %s' % p.get('errorText'))
    return out


def viewer_context(b):
    """The viewer's frame: the page's first frame, or the page itself."""
    tree = b.call('Page.getFrameTree')['frameTree']
    if not tree.get('childFrames'):
        return None
    frame = tree['childFrames'][0]['frame']['id']
    return b.call('Page.createIsolatedWorld',
                  {'frameId': frame, 'worldName': 'btrace-test'})['executionContextId']


TEXT = "document.body ? document.body.innerText : ''"
CELLS = "Array.from(document.querySelectorAll('td')).map(c => c.textContent)"
SETTLED = "new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))"


def visit(b, v):
    """Waits until @v's texts are there; returns what is missing, or []."""
    b.call('Page.navigate', {'url': 'about:blank'})
    b.call('Page.navigate', {'url': v['url']})
    deadline = time.monotonic() + WAIT
    while True:
        missing = []
        try:
            page = b.evaluate(TEXT) or ''
            ctx = viewer_context(b)
            frame = b.evaluate(TEXT, ctx) or ''
            cells = b.evaluate(CELLS, ctx) or []
        except RuntimeError:
            page, frame, cells = '', '', []	# between two documents
        missing += ['page text %r' % t for t in v.get('page_has', []) if t not in page]
        missing += ['viewer text %r' % t for t in v.get('frame_has', []) if t not in frame]
        missing += ['table cell %r' % t for t in v.get('frame_cells', []) if t not in cells]
        if not missing:
            b.evaluate(SETTLED, ctx)
            shot = b.call('Page.captureScreenshot', {'format': 'png'})
            with open(v['png'], 'wb') as f:
                f.write(base64.b64decode(shot['data']))
            return []
        if time.monotonic() > deadline:
            return missing + ['(viewer text: %r)' % frame[:2000]]
        time.sleep(0.2)


def main():
    visits = json.load(open(sys.argv[1]))
    errors = []
    with open(os.path.splitext(visits[0]['png'])[0] + '.chromium.log', 'w') as log:
        b = Browser(log)
        try:
            target = b.call('Target.createTarget', {'url': 'about:blank'})['targetId']
            b.session = b.call('Target.attachToTarget',
                               {'targetId': target, 'flatten': True})['sessionId']
            for m in ('Page.enable', 'Runtime.enable', 'Log.enable', 'Network.enable'):
                b.call(m)
            b.call('Emulation.setDeviceMetricsOverride',
                   {'width': 1400, 'height': 800, 'deviceScaleFactor': 1, 'mobile': False})
            for v in visits:
                errors += ['%s: %s' % (v['url'], m) for m in visit(b, v)]
                errors += ['%s: %s' % (v['url'], m) for m in problems(b.events)]
                b.events = []
        except (OSError, EOFError, TimeoutError, RuntimeError) as e:
            errors.append('chromium: %s' % e)
        finally:
            b.close()
    for e in errors:
        print(e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
