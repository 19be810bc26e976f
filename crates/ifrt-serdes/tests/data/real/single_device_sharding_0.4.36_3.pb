
xla::ifrt::SingleDeviceSharding
device