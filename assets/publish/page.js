/*
 * page.js: the public page's own script. It fetches the page's journal.toml,
 * checks it with verify.js (AdjutantVerify) in the reader's browser, says
 * the verdict in #verdict, and holds the JOURNAL blocks a player pastes from
 * their mails (#tips, #check-tips) against the journal (#tips-result).
 */
(function () {
  "use strict";

  let checked = null; // the verdict once the journal has been checked

  function plural(n, one, many) {
    return `${n} ${n === 1 ? one : many}`;
  }

  /** The verdict in plain words, and as data-verdict / data-draws. */
  function show(el, r) {
    el.setAttribute("data-verdict", r.verdict);
    el.setAttribute("data-draws", String(r.draws));
    let text;
    if (r.verdict === "verified") {
      text = `Verified: the hash chain of ${plural(r.entries, "entry", "entries")}, ${plural(r.links, "dice link", "dice links")} `
        + `and ${plural(r.draws, "draw", "draws")} recomputed in your browser.`;
      if (r.dice === "declared") text += " The moderator declares this game's dice: they cannot be recomputed.";
      else if (r.redacted) text += " (Hidden facts are withheld until the game ends; their links and draws are checked then.)";
    } else {
      const f = r.firstFailure || { seq: 0, why: "no reason given" };
      text = f.seq ? `FAILED at entry ${f.seq}: ${f.why}` : `FAILED: ${f.why}`;
      if (r.failures && r.failures.length > 1) text += ` (and ${plural(r.failures.length - 1, "more problem", "more problems")})`;
    }
    el.textContent = text;
    el.title = (r.notes || []).join("\n");
  }

  async function check() {
    try {
      const res = await fetch("journal.toml", { cache: "no-store" });
      if (!res.ok) throw new Error(`journal.toml could not be fetched (HTTP ${res.status})`);
      return await AdjutantVerify.verify(await res.text());
    } catch (x) {
      return { verdict: "failed", draws: 0, entries: 0, links: 0, notes: [], firstFailure: { seq: 0, why: String(x.message || x) } };
    }
  }

  /** Each pasted tip, held against the checked journal. */
  function checkTips() {
    const out = document.getElementById("tips-result");
    const tips = AdjutantVerify.readTips(document.getElementById("tips").value);
    out.textContent = "";
    if (!checked) return void (out.textContent = "The journal is still being checked; try again in a moment.");
    if (checked.verdict !== "verified") return void (out.textContent = "The journal failed its own check (above), so it vouches for no tip.");
    if (!tips.length) return void (out.textContent = "No JOURNAL block found: paste the lines from \"entry:\" to \"hash:\" of your mails.");
    const list = document.createElement("ul");
    let bad = 0;
    for (const tip of tips) {
      const r = AdjutantVerify.checkTip(checked, tip);
      const li = document.createElement("li");
      li.textContent = (r.ok ? "OK, " : "NOT HELD, ") + r.why;
      li.setAttribute("data-ok", String(r.ok));
      list.appendChild(li);
      if (!r.ok) bad++;
    }
    const sum = document.createElement("p");
    sum.textContent = bad
      ? `${plural(bad, "tip", "tips")} of ${tips.length} not held: this is not the history your mails showed.`
      : `All ${plural(tips.length, "tip", "tips")} held: this journal holds the history your mails showed.`;
    out.append(sum, list);
  }

  async function start() {
    const el = document.getElementById("verdict");
    const button = document.getElementById("check-tips");
    if (button && document.getElementById("tips")) button.addEventListener("click", checkTips);
    const r = await check();
    checked = r;
    if (el) show(el, r);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
