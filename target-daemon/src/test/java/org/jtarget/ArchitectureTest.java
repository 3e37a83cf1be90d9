package org.jtarget;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.util.stream.Stream;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layers of the daemon as rules on its compiled classes (tests excluded): each rule is one fact
 * of the architecture, and a change that breaks one fails the build with the offending class, member
 * and line. From the bottom up:
 * <pre>
 *   units, os, config, buffer        leaves: the JDK (and the leaves named in each rule) only
 *   io, rdma, backstore              no SCSI, no fabric, no config
 *   scsi                             the core: no fabric, config, daemon or Netty channels
 *   fabric                           protocols over the core: no io (LU policy and I/O threads are the core's)
 *   daemon                           wiring: may use everything, nothing uses it
 *   daemon.api                       the management API over the daemon: only the launcher starts it
 * </pre>
 */
@AnalyzeClasses(packages = "org.jtarget", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    private static final String ROOT = "org.jtarget";

    @ArchTest
    static final ArchRule scsiCoreKnowsNoFabricConfigDaemonOrNettyChannels = noClasses()
            .that().resideInAPackage(ROOT + ".scsi..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".fabric..", ROOT + ".config..",
                    ROOT + ".daemon..", "io.netty.channel..")
            .because("the SCSI core serves every fabric (iSCSI now, iSER and SRP next) and is built by the "
                    + "daemon from plain definitions; a Netty channel belongs to one transport");

    @ArchTest
    static final ArchRule storesKnowNoScsiFabricOrConfig = noClasses()
            .that().resideInAPackage(ROOT + ".backstore..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".scsi..", ROOT + ".fabric..",
                    ROOT + ".config..")
            .because("a store is blocks behind a file, device or memory: the SCSI core, RDMA endpoints and "
                    + "HA replication all open and use it, and the daemon maps the YAML onto its own settings");

    @ArchTest
    static final ArchRule rdmaVerbsKnowNoScsiFabricOrStores = noClasses()
            .that().resideInAPackage(ROOT + ".rdma..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".scsi..", ROOT + ".fabric..",
                    ROOT + ".backstore..")
            .because("rdma is the verbs layer (memory regions, queue pairs, connection manager) that iSER and "
                    + "SRP will sit on; data paths over it are fabrics");

    @ArchTest
    static final ArchRule fabricsUseNoIo = noClasses()
            .that().resideInAPackage(ROOT + ".fabric..")
            .should().dependOnClassesThat().resideInAPackage(ROOT + ".io..")
            .because("a fabric reaches logical units only through the core's SPI: queue-depth admission and "
                    + "the I/O threads are LU policy the core applies to every fabric (iSCSI now, SRP next), "
                    + "and a fabric signals back-pressure through FabricOps.commandParked");

    @ArchTest
    static final ArchRule nativeCallsAreLinkedOnlyInLibc = noClasses()
            .that().resideOutsideOfPackage(ROOT + ".os..")
            .should().dependOnClassesThat().belongToAnyOf(Linker.class, SymbolLookup.class)
            .because("every downcall handle lives in os.Libc behind a documented wrapper, so each libc "
                    + "function is linked once and the native surface of the daemon is one file");

    @ArchTest
    static final ArchRule onlyTheLauncherStartsTheManagementApi = noClasses()
            .that().resideOutsideOfPackage(ROOT + ".daemon.api..")
            .and().doNotHaveFullyQualifiedName(ROOT + ".daemon.JtargetDaemon")
            .should().dependOnClassesThat().resideInAPackage(ROOT + ".daemon.api..")
            .because("the management API reads and drives the whole daemon from above: the launcher starts it, "
                    + "nothing serving I/O may wait on it or know it");

    @ArchTest
    static final ArchRule unitsIsALeaf = leaf("units");

    @ArchTest
    static final ArchRule osIsALeaf = leaf("os");

    @ArchTest
    static final ArchRule configIsALeafOverUnits = leaf("config", "units");

    @ArchTest
    static final ArchRule bufferIsALeafOverOsAndUnits = leaf("buffer", "os", "units");

    @ArchTest
    static final ArchRule onlyTheTcpTransportOfIscsiTouchesNettyChannels = noClasses()
            .that().resideInAPackage(ROOT + ".fabric.iscsi..")
            .and().resideOutsideOfPackage(ROOT + ".fabric.iscsi.tcp..")
            .should().dependOnClassesThat().resideInAPackage("io.netty.channel..")
            .because("the iSCSI engine (login, session, tasks, TMF) runs over fabric.iscsi.spi.IscsiTransport: "
                    + "TCP is one transport (fabric.iscsi.tcp), iSER's RDMA queue pairs the next");

    @ArchTest
    static final ArchRule iserRunsOverTheVerbsNotAProviderNorTcp = noClasses()
            .that().resideInAPackage(ROOT + ".fabric.iscsi.iser..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".rdma.iwarp..", ROOT + ".rdma.loopback..",
                    ROOT + ".fabric.iscsi.tcp..")
            .because("iSER (RFC 7145) is written against the verbs and rdma_cm, so that iWARP, loopback and "
                    + "later RoCE providers all carry it; the daemon picks the provider");

    @ArchTest
    static final ArchRule srpIsItsOwnFabricOverTheVerbs = noClasses()
            .that().resideInAPackage(ROOT + ".fabric.srp..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".fabric.iscsi..", ROOT + ".rdma.iwarp..",
                    ROOT + ".rdma.loopback..", "io.netty.channel..")
            .because("SRP (T10 SRP r16a) is a fabric of its own, not a transport under iSCSI, written against the "
                    + "verbs and rdma_cm so that any provider carries it; the daemon picks the provider");

    @ArchTest
    static final ArchRule theSharedRdmaFabricPiecesKnowNoFabric = noClasses()
            .that().resideInAPackage(ROOT + ".fabric.rdma..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".fabric.iscsi..", ROOT + ".fabric.srp..",
                    ROOT + ".fabric.endpoint..", ROOT + ".scsi..")
            .because("fabric.rdma is what the RDMA fabrics share (registered arena, completion polling, buffer "
                    + "slots): each fabric uses it, it uses none of them");

    @ArchTest
    static final ArchRule haReplicatesStoresOverTheVerbsBelowTheScsiCore = noClasses()
            .that().resideInAPackage(ROOT + ".ha..")
            .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".scsi..", ROOT + ".fabric.iscsi..",
                    ROOT + ".fabric.srp..", ROOT + ".fabric.endpoint..", ROOT + ".config..", ROOT + ".daemon..",
                    ROOT + ".rdma.iwarp..", ROOT + ".rdma.loopback..", "io.netty.channel..")
            .because("HA replicates stores (a ForwardingBackstore) over the verbs and rdma_cm; the daemon maps its "
                    + "roles onto the core's ALUA states and picks the provider, so HA knows neither");

    @ArchTest
    static final ArchRule noCyclesBetweenTopLevelPackages = slices()
            .matching(ROOT + ".(*)..")
            .should().beFreeOfCycles()
            .because("each top-level package is a layer: a cycle would make two layers one");

    /**
     * No class of {@code org.jtarget.<pkg>} uses a jtarget class outside {@code pkg} and the
     * {@code allowed} leaves below it.
     */
    private static ArchRule leaf(String pkg, String... allowed) {
        String[] own = Stream.concat(Stream.of(pkg), Stream.of(allowed))
                .map(p -> ROOT + "." + p + "..").toArray(String[]::new);
        DescribedPredicate<JavaClass> outside = resideInAPackage(ROOT + "..")
                .and(DescribedPredicate.not(resideInAnyPackage(own)));
        return noClasses().that().resideInAPackage(ROOT + "." + pkg + "..")
                .should().dependOnClassesThat(outside.as("jtarget classes outside " + String.join(", ", own)))
                .because(pkg + " is a leaf layer (the JDK and libraries"
                        + (allowed.length == 0 ? "" : ", and " + String.join(", ", allowed)) + " only): "
                        + "every layer above may use it without a cycle");
    }
}
