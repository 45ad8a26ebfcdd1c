"""Room ``arms``: what every arm renders (``arm_launch``, over the registry), that the registry
is the arm modules (``arm_registry``), and each arm's own launch (``<arm>_launch``); each arm's
literal expected values are in ``expected/<arm>.py``."""
