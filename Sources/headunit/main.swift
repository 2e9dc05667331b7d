import App
import Platform

exitProcess(HeadUnitMain.main(ProcessArguments.read()))
