"""How a tool's main answers the errors it expects: one line on stderr, "TOOL: what", and the
exit status that kind of error stands for, never a traceback. Standard library only.
"""

import sys


def exit_status(tool, step, statuses):
    """What step() returns; or, when it raises an exception of a class in `statuses` (exception
    class to exit status, the first that matches), that status after "TOOL: error" on stderr (an
    interrupt, which has no text of its own, says "interrupted")."""
    try:
        return step()
    except tuple(statuses) as error:
        print(f"{tool}: {str(error) or 'interrupted'}", file=sys.stderr)
        return next(status for kind, status in statuses.items() if isinstance(error, kind))
