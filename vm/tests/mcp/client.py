"""`tissvm mcp` driven by the official MCP Python SDK (PyPI `mcp`) as an agent's
client would: every tool, the caps a call cannot loosen, gates answered only
by a human through elicitation (accepted, rejected, declined, and a client
that cannot elicit), resources, the prompt, and malformed calls.

Run by vm/tests/mcp/main.rs: python3 client.py TISSVM ROOT JOURNAL
"""

import asyncio
import json
import os
import sys

import mcp.types as types
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError

TISSVM, ROOT, JOURNAL = sys.argv[1], sys.argv[2], sys.argv[3]

# The caps of every run: the server's command line.
SERVER = StdioServerParameters(
    command=TISSVM,
    args=["mcp", "--root", ROOT, "--", "--budget", "INSTRUCTIONS=5000"],
    env={"TISS_SNAPSHOT_KEY_FILE": os.environ["TISS_SNAPSHOT_KEY_FILE"]},
)

GATED = """TASK "gated"
STEP "Ask" {
    WRITE "before.txt" FROM "x"
    %s
    WRITE "after.txt" FROM "y"
}
"""


def structured(result):
    assert not result.is_error, result
    return result.structured_content


async def expect_error(call, words):
    try:
        result = await call
    except MCPError as error:
        assert words in str(error), (words, str(error))
        return
    raise AssertionError(f"no error, but {result}")


def answering(action, content):
    async def elicit(context, params):
        assert "Go on" in params.message or "Ship" in params.message, params.message
        return types.ElicitResult(action=action, content=content)

    return elicit


async def session(elicitation, body):
    async with stdio_client(SERVER) as (read, write):
        async with ClientSession(read, write, elicitation_callback=elicitation) as s:
            await s.initialize()
            await body(s)


async def tools_and_caps(s):
    tools = (await s.list_tools()).tools
    assert [t.name for t in tools] == ["check", "lint", "fix", "inspect", "estimate", "run", "replay", "report"]
    assert all(t.input_schema["type"] == "object" for t in tools)

    found = structured(await s.call_tool("check", {"plan": 'TASK "t"\nSTEP "s" {\n    ASSERT x == 1\n}\n'}))
    assert found["errors"] == 1 and found["diagnostics"][0]["code"] == "E0200", found
    found = structured(await s.call_tool("lint", {"path": "ok.tiss"}))
    assert found["errors"] == 0 and found["warnings"] >= 1, found
    fixed = structured(await s.call_tool("fix", {"plan": 'TASK "t"\nSTEP "s" {\n    run "echo hi" TIMEOUT 5s\n}\n'}))
    assert fixed["compiles"] and fixed["changes"] == 1, fixed
    assert '-    run "echo hi"' in fixed["patch"] and '+    RUN "echo hi"' in fixed["patch"], fixed["patch"]
    manifest = structured(await s.call_tool("inspect", {"path": "ok.tiss"}))
    assert "risk" in json.dumps(manifest), manifest
    bounds = structured(await s.call_tool("estimate", {"path": "ok.tiss"}))
    assert "total" in json.dumps(bounds), bounds

    ran = structured(await s.call_tool("run", {"path": "ok.tiss", "workdir": "ws"}))
    assert ran["exit_code"] == 0 and ran["report"]["status"] == "passed", ran
    assert os.path.exists(os.path.join(ROOT, "ws", "out.txt"))
    again = structured(await s.call_tool("report", {"id": ran["id"]}))
    assert again == ran["report"]
    resources = (await s.list_resources()).resources
    assert str(resources[0].uri) == f"tiss://reports/{ran['id']}"
    read = await s.read_resource(resources[0].uri)
    assert json.loads(read.contents[0].text) == ran["report"]

    # The server's budget holds, whatever the plan says.
    loop = 'TASK "big"\nSTEP "s" {\n' + "".join(f'    LOG "line {i}"\n' for i in range(3000)) + "}\n"
    capped = structured(await s.call_tool("run", {"plan": loop, "workdir": "ws"}))
    assert capped["exit_code"] == 4 and capped["report"]["failure"]["kind"] == "budget_exceeded", capped

    # No argument can loosen a cap, reach outside the root, or name a missing thing.
    await expect_error(s.call_tool("run", {"path": "ok.tiss", "sandbox_profile": "none"}), "sandbox_profile")
    await expect_error(s.call_tool("run", {"path": "ok.tiss", "budget": "INSTRUCTIONS=9999999"}), "budget")
    await expect_error(s.call_tool("check", {"path": "/etc/passwd"}), "outside the workspace root")
    await expect_error(s.call_tool("check", {"path": "../x.tiss"}), "..")
    await expect_error(s.call_tool("run", {"path": "ok.tiss", "workdir": "/tmp"}), "outside the workspace root")
    await expect_error(s.call_tool("check", {}), "a plan is needed")
    await expect_error(s.call_tool("nothing", {}), "no tool")
    await expect_error(s.call_tool("report", {"id": 99}), "no report 99")
    await expect_error(s.call_tool("check", {"plan": 7}), "must be a")

    replayed = structured(await s.call_tool("replay", {"journal": JOURNAL}))
    assert replayed["exit_code"] == 0 and replayed["report"]["status"] == "passed", replayed

    prompt = await s.get_prompt("write_plan", {"goal": "test a Python script"})
    text = prompt.messages[0].content.text
    assert "TASK" in text and "test a Python script" in text


async def main():
    await session(None, tools_and_caps)

    # A PAUSE the human continues, through the client.
    async def paused(s):
        ran = structured(await s.call_tool("run", {"plan": GATED % 'PAUSE "Go on?"', "workdir": "ws"}))
        assert ran["exit_code"] == 0, ran
        assert ran["gates"][0]["answer"] == "continue", ran

    await session(answering("accept", {"continue": True}), paused)

    # A review the human rejects: the plan fails with review_rejected.
    async def rejected(s):
        plan = GATED % 'REQUEST_REVIEW "Ship it?"'
        ran = structured(await s.call_tool("run", {"plan": plan, "workdir": "ws"}))
        assert ran["exit_code"] == 1 and ran["report"]["failure"]["kind"] == "review_rejected", ran

    await session(answering("accept", {"decision": "reject", "comment": "not yet"}), rejected)

    # Declined by the human, or no way to ask one: the run stays suspended.
    async def suspended(s):
        ran = structured(await s.call_tool("run", {"plan": GATED % 'PAUSE "Go on?"', "workdir": "ws"}))
        assert ran["exit_code"] == 3 and ran["report"]["status"] == "suspended", ran
        assert ran["resume"][0].startswith("tissvm resume ") and "--answer continue" in ran["resume"][0], ran
        assert os.path.exists(os.path.join(ROOT, ran["report"]["snapshot"])), ran
        return ran

    async def declined(s):
        ran = await suspended(s)
        assert "declined" in ran["why"], ran

    async def cannot_ask(s):
        ran = await suspended(s)
        assert "cannot ask a human" in ran["why"], ran

    await session(answering("decline", None), declined)
    await session(None, cannot_ask)
    print("client.py: passed")


asyncio.run(main())
