"""`fracas lsp`: the language server for editors, over stdin and stdout (needs pygls: fracas[lsp]).

analysis.py checks an open file with its `extends` chain and indexes its
names; features.py and completion.py answer from that; server.py speaks the
protocol. Running an example goes through fracas.interpreter.tools.examples, built on the
API, like every tool.
"""

from __future__ import annotations

import os
import sys

from fracas.dsl.limits import Limits


def serve(limits: Limits) -> int:
    """Run the server until the client says exit; the exit code."""
    try:
        from fracas.interpreter.tools.lsp.server import build
    except ImportError as error:
        if (error.name or "").split(".")[0] not in ("pygls", "lsprotocol"):
            raise  # an import of ours that fails is a bug of ours, not a missing extra
        print(f"fracas: error: fracas lsp needs pygls ({error.name} is missing); install it with: "
              "pip install 'fracas[lsp]'", file=sys.stderr)
        return 2
    # The analyses run in a thread beside the one that reads requests and answers them: a request waiting
    # for the interpreter waits out the analysis's turn, 5 ms by default, at each of the many hand-overs of
    # reading and answering it. Shorter turns answer sooner and cost the analysis little.
    sys.setswitchinterval(0.0005)
    build(limits).start_io()
    sys.stdout = open(os.devnull, "w")  # the protocol's stream is closed: nothing more goes there
    return 0
