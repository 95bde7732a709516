"""MCP-05: every item over MCP carries its mailbox sequence, and a client that
reconnects catches up from the last sequence it saw: in order, nothing missed,
nothing repeated."""

from __future__ import annotations

from pathlib import Path

from tests.mcp.support import connected, hosted, server_for


async def test_mcp_05_a_reconnecting_client_catches_up_from_its_last_sequence(
    tmp_path: Path,
) -> None:
    async with hosted(tmp_path) as rt:
        agent = rt.get_agent("ada")
        sent = [await agent.enqueue("a2a_message", {"content": f"m{i}"}) for i in range(5)]
        async with connected(server_for(rt)) as first:
            page = await first.ok("peek_inbox", after_seq=0, limit=3)
            assert [i["id"] for i in page["items"]] == sent[:3] and page["more"] is True
            seqs = [i["seq"] for i in page["items"]]
            assert seqs == sorted(seqs) and all(s > 0 for s in seqs)
            claimed = await first.ok("claim")
            assert claimed["claim"]["item"]["seq"] == seqs[0]
            await first.ok("ack", item_id=sent[0])
            last = page["lastSeq"]
        # Gone; meanwhile more mail arrives, some of it handled elsewhere.
        sent += [await agent.enqueue("a2a_message", {"content": f"m{i}"}) for i in range(5, 8)]
        async with connected(server_for(rt)) as again:
            seen: list[str] = []
            after = last
            while True:
                page = await again.ok("peek_inbox", after_seq=after, limit=2)
                seen += [i["id"] for i in page["items"]]
                if not page["more"]:
                    break
                after = page["lastSeq"]
            assert seen == sent[3:]  # in order, nothing missed or repeated
            waited = await again.ok("wait_for_mail", after_seq=last, timeout_s=0)
            assert [i["id"] for i in waited["items"]] == sent[3:]
            nothing = await again.ok("wait_for_mail", after_seq=waited["lastSeq"], timeout_s=0)
            assert nothing["items"] == [] and nothing["lastSeq"] == waited["lastSeq"]
            # Any status: the acknowledged first item is in a catch-up from the start.
            everything = await again.ok("peek_inbox", after_seq=0, limit=100)
            assert [i["id"] for i in everything["items"]] == sent
            assert everything["items"][0]["status"] == "completed"
