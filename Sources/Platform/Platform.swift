import CLinux
