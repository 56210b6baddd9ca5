"""The recording reverse proxy of ``cachelint proxy`` and ``cachelint run``: any agent, in any
language, audited from the bytes it sends.

Data flow: a request -> ``routes`` (which upstream) -> ``server`` (relayed unchanged, or answered
by ``fake_model`` in the API's wire format, ``fake_wire``) -> ``recorder`` (one capture line in
``cachelint.capture``'s format) -> ``live`` (the audit's diff with the previous request of its
session: a break told in one line). ``launch`` puts them together for the CLI.

aiohttp (the optional extra ``cachelint[proxy]``) is imported only by ``server`` when it starts:
importing this package costs the linter nothing.
"""
