package org.jtarget.fabric.iscsi.tcp;

import io.netty.channel.EventLoopGroup;
import org.jtarget.buffer.BufferPool;
import org.jtarget.fabric.iscsi.IscsiPortalDefinition;
import org.jtarget.fabric.iscsi.login.LoginSettings;
import org.jtarget.io.LunIoExecutors;
import org.jtarget.scsi.lun.TargetRegistry;
import org.junit.jupiter.api.Test;

import java.net.BindException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class IscsiTcpFabricTest {

    @Test
    void bindingAnAddressInUseThrowsBindException() throws Exception {
        EventLoopGroup boss = IscsiTcpFabric.newEventLoopGroup(1);
        EventLoopGroup workers = IscsiTcpFabric.newEventLoopGroup(1);
        try {
            IscsiTcpFabric fabric = new IscsiTcpFabric(new BufferPool(1), boss, workers, new TargetRegistry(new LunIoExecutors(n -> Runnable::run), null),
                    LoginSettings.defaults());
            fabric.bind(new IscsiPortalDefinition("a", "127.0.0.1", 0, 1));
            int port = ((InetSocketAddress) fabric.listeningChannels().getFirst().localAddress()).getPort();
            assertThat(port).isPositive();
            IscsiTcpFabric other = new IscsiTcpFabric(new BufferPool(1), boss, workers, new TargetRegistry(new LunIoExecutors(n -> Runnable::run), null),
                    LoginSettings.defaults());
            assertThatThrownBy(() -> other.bind(new IscsiPortalDefinition("b", "127.0.0.1", port, 1)))
                    .isInstanceOf(BindException.class);
            fabric.close(Duration.ofSeconds(2));
            assertThat(fabric.listeningChannels()).isEmpty();
        } finally {
            boss.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
            workers.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
