"""What every tool that runs netprof (scripts/tools: sweep, knee) does before its first run:
finish parsing its command line, choose the transports and make the network namespace they
share, and let SIGTERM unwind like Ctrl-C so that namespace is deleted. Standard library only.
"""

import datetime
import os
import shlex
import signal
import sys

import netprof_harness as harness
import netprof_services as services
from netprof_figures import ArgumentError


def choose_setups(requested, built, tool):
    """The setups to run (`requested` names, or one per transport of the build) and the
    namespace those that need one will share (or None). Setups that need a namespace this
    process cannot make are left out, with the reason on stderr."""
    if requested:
        setups = harness.resolve_setups(requested, built)
    else:
        setups = harness.default_setups(built)
    namespace, reason = services.namespace_for(setups, tool)
    if reason is not None:
        names = ", ".join(setup.name for setup in setups if setup.needs_namespace)
        print(f"{tool}: skipping {names}: {reason}", file=sys.stderr)
        setups = [setup for setup in setups if not setup.needs_namespace]
    return setups, namespace


def start_tool(tool, parse_arguments, argv):
    """A tool's command line parsed and its setups chosen: (arguments, setups, namespace), or
    None after one line on stderr saying why not (the tool then exits 2)."""
    try:
        arguments = parse_arguments(argv)
        return (arguments, *setups_for(arguments, tool))
    except (ArgumentError, harness.SetupError) as error:
        print(f"{tool}: {error}", file=sys.stderr)
        return None


def setups_for(arguments, tool):
    """The setups a tool runs (arguments.transports, or every transport of arguments.netprof)
    and their shared namespace (or None). SIGTERM unwinds like Ctrl-C from here on, so the
    caller's `finally` deletes the namespace. SetupError when no setup is left."""
    built = harness.list_transports(arguments.netprof)
    raise_interrupt_on_sigterm()
    setups, namespace = choose_setups(arguments.transports, built, tool)
    if not setups:
        raise harness.SetupError("no transport left to run")
    return setups, namespace


def raise_interrupt_on_sigterm():
    """SIGTERM unwinds like Ctrl-C, so a tool deletes its namespace and keeps its results."""
    def handler(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)


def finish_run_arguments(arguments, tool):
    """What every tool that runs netprof does to its parsed arguments: --netprof-args split as
    a shell would, --transports split at commas, --out defaulting to results/TOOL-DATE-TIME."""
    arguments.netprof_args = tuple(shlex.split(arguments.netprof_args))
    if arguments.transports:
        arguments.transports = [name for item in arguments.transports
                                for name in item.split(",") if name]
    if not arguments.out:
        stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
        arguments.out = os.path.join("results", f"{tool}-{stamp}")
