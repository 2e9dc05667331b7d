// Writes bonds and the remembered server under a state directory as fast as
// it can, forever: the power-cut test kills it with SIGKILL at random
// moments and checks that every file still loads. It uses the firmware's own
// store code, so what is tested is what ships.
import App
import Platform

let args = ProcessArguments.read()
guard args.count == 2 else {
    StandardErrorLog.line("usage: state-stress DIR")
    exitProcess(2)
}
StateStress.run(directory: args[1])
