package org.jtarget.ctl;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code jtargetctl completion}: a bash completion script, generated from the commands themselves. */
@Command(name = "completion", description = {"Print a bash completion script for jtargetctl.",
    "Use: source <(jtargetctl completion)   or save it in /etc/bash_completion.d/jtargetctl"})
final class CompletionCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().getOut().print(AutoComplete.bash("jtargetctl", spec.root().commandLine()));
        spec.commandLine().getOut().flush();
        return 0;
    }
}
