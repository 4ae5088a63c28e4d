"""Android Agent Workbench environment servers as Ray actors (docs/ray.md).

    from awb_ray import env_servers
    with env_servers("auto", 8) as servers:   # 8 SimDroids, one CPU each, spread over the cluster's nodes
        servers.urls                          # ws://NODE:PORT/env?token=… for awb_env's environments
"""

from .cluster import EnvServers, connect, env_servers
from .errors import (AwbRayError, CheckoutError, ClusterResourcesError, ClusterUnreachableError, EnvServerPlacementError,
                     EnvServerStartError)
from .server import EnvServer, EnvServerInfo

__all__ = [
    "AwbRayError", "CheckoutError", "ClusterResourcesError", "ClusterUnreachableError", "EnvServer", "EnvServerInfo",
    "EnvServerPlacementError", "EnvServerStartError", "EnvServers", "connect", "env_servers",
]
