#!/usr/bin/env python3
"""A training launcher that sizes its micro-batch with libvramest before it
starts anything (the Python twin of examples/launcher.c):

    launcher.py --spec job.json [-- python train.py --micro-batch {}]

It reads the job spec, finds the largest micro-batch that fits the spec's
device (vramest.solve_max), keeps the configured one if it fits, and then
runs the command with every "{}" replaced by the chosen micro-batch, also
exported as MICRO_BATCH_SIZE. Exit status: the command's, 1 when not even a
micro-batch of 1 fits, 2 on bad input. Standard library only.
"""
import os
import sys

import vramest

GIB = 1024.0 ** 3


def main(argv):
    spec_path, command = None, []
    i = 1
    while i < len(argv):
        if argv[i] == "--spec" and i + 1 < len(argv):
            spec_path = argv[i + 1]
            i += 2
        elif argv[i] == "--":
            command = argv[i + 1:]
            break
        else:
            spec_path = None
            break
    if not spec_path:
        print("usage: launcher.py --spec FILE|- [-- COMMAND ARGS... ({} = micro-batch)]", file=sys.stderr)
        return 2
    try:
        text = sys.stdin.read() if spec_path == "-" else open(spec_path, encoding="utf-8").read()
    except OSError as e:
        print("launcher: cannot read %s: %s" % (spec_path, e), file=sys.stderr)
        return 2

    try:
        model, precision, config = vramest.parse_spec(text)
        wanted = config.get("batch_size")
        best, device_total = vramest.solve_max(model, precision, config, "batch_size")
    except vramest.DoesNotFit as e:
        print("launcher: %s" % e.message, file=sys.stderr)
        return 1
    except vramest.Error as e:
        print("launcher: %s" % e, file=sys.stderr)
        return 2

    chosen = min(wanted, best)
    print("micro-batch %d: the largest that fits is %d (%.2f GiB per GPU at that size)%s"
          % (chosen, best, device_total / GIB,
             "; the configured micro-batch does not fit, using the largest" if wanted > best else ""))
    sys.stdout.flush()
    if not command:
        return 0
    env = dict(os.environ, MICRO_BATCH_SIZE=str(chosen))
    command = [str(chosen) if arg == "{}" else arg for arg in command]
    try:
        os.execvpe(command[0], command, env)
    except OSError as e:
        print("launcher: cannot run %s: %s" % (command[0], e), file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv))
