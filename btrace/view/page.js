// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * btrace view's page: speedscope on the history that btrace wrote into
 * the page (#btrace-profile, base64 of 'btrace export --format
 * speedscope'), and for a crash trace the report beside it.
 *
 * speedscope takes its layout from the whole window, so beside a report
 * it runs in a frame: the page opens itself there with "#btrace-frame",
 * which asks for speedscope alone (and opens the page so at the top too).
 * Other parameters of the address go to speedscope: "#view=left-heavy"
 * (the flame graph), "#view=sandwich", "#view=time-ordered".
 *
 * speedscope loads a local profile the way its command line hands it one:
 * the address names a script that calls speedscope.loadFileFromBase64().
 * Here no script is loaded: the request for it is answered with the
 * profile already in the page.
 */
(function () {
	'use strict';
	var FRAME = /^#btrace-frame&?/;
	var LOCAL = 'btrace-view-profile';
	var crash = document.getElementById('btrace-crash');
	var profile = document.getElementById('btrace-profile');

	function beside() {
		var f = document.createElement('iframe');

		f.title = 'speedscope';
		f.src = location.href.replace(/#.*$/, '') + '#btrace-frame&' +
			location.hash.replace(/^#/, '');
		document.body.className = 'btrace-split';
		document.body.insertBefore(f, crash);
		crash.hidden = false;
	}

	function answerLoad() {
		var head = document.head, add = head.appendChild;

		head.appendChild = function (node) {
			if (node.tagName !== 'SCRIPT' || node.src.slice(-LOCAL.length) !== LOCAL)
				return add.apply(this, arguments);
			head.appendChild = add;
			setTimeout(function () {
				window.speedscope.loadFileFromBase64(profile.dataset.name,
								     profile.textContent.replace(/\s+/g, ''));
			});
			return node;
		};
	}

	function speedscope() {
		var s = document.createElement('script');
		var rest = location.hash.replace(FRAME, '').replace(/^#/, '');

		if (crash)
			crash.remove();
		history.replaceState(null, '', '#localProfilePath=' + LOCAL +
				     (rest ? '&' + rest : ''));
		answerLoad();
		s.textContent = document.getElementById('btrace-speedscope').textContent;
		document.body.appendChild(s);
	}

	if (crash && window.top === window.self && !FRAME.test(location.hash))
		beside();
	else
		speedscope();
})();
