<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<!-- English plural forms only (the sources are English): "1 run", "2 runs" where the source says
     "%n run(s)". Add an entry here for every new tr() with %n. -->
<TS version="2.1" language="en">
<context>
    <name>TopologyCheck</name>
    <message numerus="yes">
        <source>%n party server(s)</source>
        <translation>
            <numerusform>%n party server</numerusform>
            <numerusform>%n party servers</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hips::Designer</name>
    <message numerus="yes">
        <source>Delete %n items</source>
        <translation>
            <numerusform>Delete %n item</numerusform>
            <numerusform>Delete %n items</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Copied %n items</source>
        <translation>
            <numerusform>Copied %n item</numerusform>
            <numerusform>Copied %n items</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hips::HistoryPanel</name>
    <message numerus="yes">
        <source>%n run directory(s):
%1</source>
        <translation>
            <numerusform>The run directory:
%1</numerusform>
            <numerusform>Their %n run directories:
%1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Also delete their run directories (%n folder(s): model, logs, checkpoints)</source>
        <translation>
            <numerusform>Also delete the run directory (%n folder: model, logs, checkpoints)</numerusform>
            <numerusform>Also delete their run directories (%n folders: model, logs, checkpoints)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleted %n run(s) and their run directories</source>
        <translation>
            <numerusform>Deleted %n run and its run directory</numerusform>
            <numerusform>Deleted %n runs and their run directories</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Deleted %n run(s)</source>
        <translation>
            <numerusform>Deleted %n run</numerusform>
            <numerusform>Deleted %n runs</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hips::RunPanel</name>
    <message numerus="yes">
        <source>finished after %n round(s) in %1 s: final test accuracy %2</source>
        <translation>
            <numerusform>finished after %n round in %1 s: final test accuracy %2</numerusform>
            <numerusform>finished after %n rounds in %1 s: final test accuracy %2</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>finished after %n round(s) in %1 s: final test %2 %3</source>
        <translation>
            <numerusform>finished after %n round in %1 s: final test %2 %3</numerusform>
            <numerusform>finished after %n rounds in %1 s: final test %2 %3</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>model file %1: %n tensor(s), SHA-256 %2…</source>
        <translation>
            <numerusform>model file %1: %n tensor, SHA-256 %2…</numerusform>
            <numerusform>model file %1: %n tensors, SHA-256 %2…</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>stopped after %n round(s) in %1 s (%2)</source>
        <translation>
            <numerusform>stopped after %n round in %1 s (%2)</numerusform>
            <numerusform>stopped after %n rounds in %1 s (%2)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>hips::MainWindow</name>
    <message numerus="yes">
        <source>Showing run %1 (%2): %n round(s)</source>
        <translation>
            <numerusform>Showing run %1 (%2): %n round</numerusform>
            <numerusform>Showing run %1 (%2): %n rounds</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n process(es)</source>
        <translation>
            <numerusform>%n process</numerusform>
            <numerusform>%n processes</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>%n training worker(s)</source>
        <translation>
            <numerusform>%n training worker</numerusform>
            <numerusform>%n training workers</numerusform>
        </translation>
    </message>
</context>
</TS>
