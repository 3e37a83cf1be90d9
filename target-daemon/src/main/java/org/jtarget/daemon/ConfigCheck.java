package org.jtarget.daemon;

import org.jtarget.config.BackstoreConfig;
import org.jtarget.config.ConfigException;
import org.jtarget.config.ConfigLoader;
import org.jtarget.config.JtargetConfig;
import org.jtarget.config.PortalConfig;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * {@code jtargetd --check --config FILE}: everything a start would refuse, found without serving
 * and without changing anything on disk. The config is loaded (every key), then what only the
 * host can answer is tried: each listening address is bound and closed again, each file or block
 * store is opened for reading and writing and closed (a missing file with {@code create: true}
 * needs a writable folder; nothing is created), the management socket's folder must exist.
 */
final class ConfigCheck {

    private final JtargetConfig config;

    private ConfigCheck(JtargetConfig config) {
        this.config = config;
    }

    /**
     * Checks {@code file}.
     *
     * @return one line saying what the config serves
     * @throws ConfigException naming the file and the first key that a start would refuse
     */
    static String check(Path file) throws ConfigException {
        JtargetConfig config = ConfigLoader.load(file);
        new ConfigCheck(config).probeHost();
        int luns = config.targets().stream().mapToInt(t -> t.luns().size()).sum();
        return file + ": OK, " + config.targets().size() + " target(s), " + luns + " LUN(s), "
                + config.backstores().size() + " backstore(s), " + config.portals().size() + " portal(s)";
    }

    private void probeHost() throws ConfigException {
        for (int i = 0; i < config.portals().size(); i++) {
            PortalConfig p = config.portals().get(i);
            // iSER and SRP portals are served by the iwarp provider, whose listener is TCP too
            probeListen("portals[" + i + "].listen", p.host(), p.port());
        }
        if (config.rdma() != null) {
            probeListen("rdma.listen", config.rdma().host(), config.rdma().port());
        }
        if (config.ha() != null) {
            probeListen("ha.listen", config.ha().listenHost(), config.ha().listenPort());
        }
        if (config.management() != null) {
            if (config.management().hasHttp()) {
                probeListen("management.http", config.management().httpHost(), config.management().httpPort());
            }
            if (config.management().socket() != null) {
                probeSocketFolder(config.management().socket());
            }
        }
        for (int i = 0; i < config.backstores().size(); i++) {
            probeStore("backstores[" + i + "]", config.backstores().get(i));
        }
    }

    private void probeListen(String key, String host, int port) throws ConfigException {
        String address = TargetRuntime.hostPort(host, port);
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true); // as the daemon's listeners: a socket in TIME_WAIT does not count
            s.bind(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw error(key, address + ": cannot listen: " + e.getMessage());
        }
    }

    private void probeSocketFolder(Path socket) throws ConfigException {
        Path folder = socket.toAbsolutePath().getParent();
        if (!Files.isDirectory(folder) || !Files.isWritable(folder)) {
            throw error("management.socket", folder + " is not a writable folder (under systemd, "
                    + "RuntimeDirectory=jtarget makes /run/jtarget)");
        }
    }

    private void probeStore(String key, BackstoreConfig store) throws ConfigException {
        if (store.type() != BackstoreConfig.Type.FILE && store.type() != BackstoreConfig.Type.BLOCK) {
            return; // memory and partitions: nothing on the host beyond what the loader checked
        }
        Path path = store.path();
        if (Files.exists(path)) {
            try (FileChannel ignored = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                return;
            } catch (IOException | SecurityException e) {
                throw error(key + ".path", path + ": cannot open for reading and writing: " + reason(e));
            }
        }
        if (store.type() == BackstoreConfig.Type.BLOCK || !store.create()) {
            throw error(key + ".path", path + " does not exist"
                    + (store.type() == BackstoreConfig.Type.FILE ? " (create: true makes it)" : ""));
        }
        Path folder = path.toAbsolutePath().getParent();
        if (!Files.isDirectory(folder) || !Files.isWritable(folder)) {
            throw error(key + ".path", path + " is to be created, but " + folder + " is not a writable folder");
        }
    }

    /** Why the file system refused, without repeating the path the message already names. */
    private static String reason(Exception e) {
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        return e.getMessage() == null ? "refused" : e.getMessage();
    }

    private ConfigException error(String key, String problem) {
        return new ConfigException(config.source().toString(), key, problem);
    }
}
