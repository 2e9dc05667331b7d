// BlueZ kernel socket interface (libbluetooth-dev headers) plus the hci_uart
// line-discipline ioctls, which live only in the kernel's private headers.
#ifndef NN_CBLUEZ_SHIM_H
#define NN_CBLUEZ_SHIM_H

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>

#ifndef HCI_CHANNEL_USER
#define HCI_CHANNEL_USER 1
#endif

/// Line discipline number of hci_uart (include/uapi/linux/tty.h).
static const int NN_N_HCI = 15;
/// hci_uart protocol id for plain H4.
static const int NN_HCI_UART_H4 = 0;
/// HCIUARTSETFLAGS bit HCI_UART_RAW_DEVICE (drivers/bluetooth/hci_uart.h):
/// the kernel registers the device unconfigured and never runs its own
/// initialisation on it (btattach -R).
static const int NN_HCI_UART_RAW_DEVICE_FLAG = 1 << 0;

static inline unsigned long nn_hciuart_setproto(void) { return _IOW('U', 200, int); }
static inline unsigned long nn_hciuart_getdevice(void) { return _IOR('U', 202, int); }
static inline unsigned long nn_hciuart_setflags(void) { return _IOW('U', 203, int); }
static inline unsigned long nn_hcidevdown(void) { return HCIDEVDOWN; }
static inline unsigned long nn_hcigetdevinfo(void) { return HCIGETDEVINFO; }

#endif
